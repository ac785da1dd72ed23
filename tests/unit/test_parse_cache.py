"""The parse cache keeps what resolution needs, never code, and forgets results of another graph format."""

from __future__ import annotations

import sqlite3

import indexer.parse_cache as parse_cache
from indexer.parse import parse_file
from indexer.parse_cache import ParseCache

SOURCE = b"class Shop:\n    def run(self):\n        return helper()\n\ndef helper():\n    return 1\n"


def test_a_cached_outcome_has_the_facts_and_function_hashes_but_no_code(tmp_path):
    outcome = parse_file("pkg/shop.py", SOURCE)
    cache = ParseCache(tmp_path / "cache.sqlite3")
    cache.put_many([("blob1", outcome)])

    cached = cache.get_many([("pkg/shop.py", "blob1"), ("pkg/shop.py", "blob2"), ("other.py", "blob1")])

    assert list(cached) == ["pkg/shop.py"]  # the same blob at another path, or another blob, misses
    hit = cached["pkg/shop.py"]
    assert hit.outcome.code is None and all(e.code == "" for e in hit.outcome.facts.entities)
    assert [e.qualname for e in hit.outcome.facts.entities] == [e.qualname for e in outcome.facts.entities]
    assert hit.outcome.facts.references == outcome.facts.references
    assert set(hit.function_hashes) == {"pkg/shop.py:Shop.run", "pkg/shop.py:helper"}  # not the class


def test_another_graph_format_empties_the_cache_and_a_corrupt_row_is_a_miss(tmp_path, monkeypatch):
    location = tmp_path / "cache.sqlite3"
    ParseCache(location).put_many([("b1", parse_file("a.py", SOURCE)), ("b2", parse_file("b.py", SOURCE))])
    with sqlite3.connect(location) as raw:
        raw.execute("UPDATE parses SET outcome = x'00' WHERE key LIKE '%:b2:b.py'")

    assert list(ParseCache(location).get_many([("a.py", "b1"), ("b.py", "b2")])) == ["a.py"]
    monkeypatch.setattr(parse_cache, "GRAPH_FORMAT", "next-version")
    assert ParseCache(location).get_many([("a.py", "b1")]) == {}
    with sqlite3.connect(location) as raw:
        assert raw.execute("SELECT count(*) FROM parses").fetchone() == (0,)


def test_off_disables_the_cache(monkeypatch):
    monkeypatch.setenv("SPIDER_PARSE_CACHE", "off")
    cache = parse_cache.open_parse_cache()
    cache.put_many([("b1", parse_file("a.py", SOURCE))])
    assert cache.get_many([("a.py", "b1")]) == {} and cache.connection is None
