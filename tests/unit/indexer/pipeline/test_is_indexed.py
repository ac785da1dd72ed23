"""When `spider index` may answer from what a snapshot already holds, and when it must index again."""

from __future__ import annotations

from spider.indexer.graph.snapshot import Snapshot
from spider.indexer.pipeline.graph_format import graph_format
from spider.indexer.pipeline.index import is_indexed
from spider.indexer.vectors.store import WINDOWS_PER_FUNCTION

MODEL = "all-MiniLM-L6-v2"
EMBEDDED = {"model": MODEL, "dim": 384, "embedded": 3, "reused": 0, "stores": [], "windows": WINDOWS_PER_FUNCTION}


def snapshot(**stats) -> Snapshot:
    return Snapshot("shop", "a" * 40, "HEAD", True, 1, "w", "2026-11-26", {"graph_format": graph_format(), **stats})


def test_a_complete_snapshot_of_this_format_is_indexed():
    assert is_indexed(snapshot(embedding=EMBEDDED), MODEL) and is_indexed(snapshot(), None)


def test_a_snapshot_another_spider_wrote_is_indexed_again():
    # After an upgrade that reads code otherwise (a language added, a resolver fixed), the old graph is stale.
    assert not is_indexed(snapshot(graph_format="0123456789abcdef", embedding=EMBEDDED), MODEL)
    assert not is_indexed(snapshot(graph_format=None), None)


def test_a_snapshot_embedded_with_another_model_is_embedded_again():
    assert not is_indexed(snapshot(embedding=EMBEDDED), "test/another-model")
    assert is_indexed(snapshot(embedding=EMBEDDED), None)  # its graph is current


def test_an_incomplete_or_unembedded_snapshot_is_indexed_again():
    assert not is_indexed(snapshot(), MODEL)
    assert not is_indexed(None, None)


def test_a_snapshot_embedded_with_fewer_windows_of_code_is_embedded_again():
    older = {k: v for k, v in EMBEDDED.items() if k != "windows"}  # recorded before spider embedded windows
    assert not is_indexed(snapshot(embedding=older), MODEL)
    assert not is_indexed(snapshot(embedding={**EMBEDDED, "windows": WINDOWS_PER_FUNCTION // 2}), MODEL)
    assert is_indexed(snapshot(embedding=older), None)  # its graph is current


def test_a_snapshot_embedded_with_more_windows_of_code_holds_every_window_this_spider_reads():
    # A spider with a higher cap (or a downgrade) wrote windows past this one's: nothing lacks, nothing to embed.
    assert is_indexed(snapshot(embedding={**EMBEDDED, "windows": WINDOWS_PER_FUNCTION * 2}), MODEL)
