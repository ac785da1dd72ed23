"""When `spider index` may answer from what a snapshot already holds, and when it must index again."""

from __future__ import annotations

from spider.indexer.graph.snapshot import Snapshot
from spider.indexer.parse.cache import GRAPH_FORMAT
from spider.indexer.pipeline.index import is_indexed

EMBEDDED = {"model": "all-MiniLM-L6-v2", "dim": 384, "embedded": 3, "reused": 0, "stores": []}


def snapshot(**stats) -> Snapshot:
    return Snapshot("shop", "a" * 40, "HEAD", True, 1, "w", "2026-11-26", {"graph_format": GRAPH_FORMAT, **stats})


def test_a_complete_snapshot_of_this_format_is_indexed():
    assert is_indexed(snapshot(embedding=EMBEDDED), embed=True) and is_indexed(snapshot(), embed=False)


def test_a_snapshot_another_spider_wrote_is_indexed_again():
    # After an upgrade that reads code otherwise (a language added, a resolver fixed), the old graph is stale.
    assert not is_indexed(snapshot(graph_format="0123456789abcdef", embedding=EMBEDDED), embed=True)
    assert not is_indexed(snapshot(graph_format=None), embed=False)


def test_an_incomplete_or_unembedded_snapshot_is_indexed_again():
    assert not is_indexed(snapshot(), embed=True)
    assert not is_indexed(None, embed=False)
