"""The parse cache keeps what resolution needs, never code, and forgets results of another graph format."""

from __future__ import annotations

import pickle
import sqlite3
import stat
from dataclasses import fields
from pathlib import Path

import pytest
import spider.indexer.parse.cache as parse_cache
from spider.core.errors import SpiderError
from spider.core.settings import Settings
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.parse.cache import ParseCache
from spider.indexer.parse.facts import Entity, Export, Import, Reference

from tests.fixtures.damaged_files import garbage, truncated

FORMAT = "this-spider"  # the graph format a cache keeps results of
SOURCE = b"class Shop:\n    def run(self):\n        return helper()\n\ndef helper():\n    return 1\n"


def test_a_cached_outcome_has_the_facts_and_function_hashes_but_no_code(tmp_path):
    outcome = parse_file("pkg/shop.py", SOURCE)
    cache = ParseCache(tmp_path / "cache.sqlite3", FORMAT)
    cache.put_many([("blob1", outcome)])

    cached = cache.get_many([("pkg/shop.py", "blob1"), ("pkg/shop.py", "blob2"), ("other.py", "blob1")])

    assert list(cached) == ["pkg/shop.py"]  # the same blob at another path, or another blob, misses
    hit = cached["pkg/shop.py"]
    assert hit.outcome.code is None and all(e.code == "" for e in hit.outcome.facts.entities)
    assert [e.qualname for e in hit.outcome.facts.entities] == [e.qualname for e in outcome.facts.entities]
    assert hit.outcome.facts.references == outcome.facts.references
    assert set(hit.function_hashes) == {"pkg/shop.py:Shop.run", "pkg/shop.py:helper"}  # not the class


def test_another_graph_format_empties_the_cache_and_a_corrupt_row_is_a_miss(tmp_path):
    location = tmp_path / "cache.sqlite3"
    ParseCache(location, FORMAT).put_many([("b1", parse_file("a.py", SOURCE)), ("b2", parse_file("b.py", SOURCE))])
    with sqlite3.connect(location) as raw:
        raw.execute("UPDATE parses SET outcome = x'00' WHERE key LIKE '%:b2:b.py'")

    assert list(ParseCache(location, FORMAT).get_many([("a.py", "b1"), ("b.py", "b2")])) == ["a.py"]
    assert ParseCache(location, "next-version").get_many([("a.py", "b1")]) == {}
    assert ParseCache(location, FORMAT).get_many([("a.py", "b1")]) == {}  # forgotten, not kept aside
    with sqlite3.connect(location) as raw:
        assert raw.execute("SELECT count(*) FROM parses").fetchone() == (0,)


def test_off_disables_the_cache(monkeypatch):
    monkeypatch.setenv("SPIDER_PARSE_CACHE", "off")
    cache = parse_cache.open_parse_cache(FORMAT, Settings.from_env())
    cache.put_many([("b1", parse_file("a.py", SOURCE))])
    assert cache.get_many([("a.py", "b1")]) == {} and cache.connection is None


def test_past_its_bound_the_cache_drops_the_results_used_longest_ago(tmp_path):
    location = tmp_path / "cache.sqlite3"
    bound = 1 << 20  # each result below is ~7 KB: 100 fit, 200 do not
    outcomes = {i: parse_file(f"pkg/m{i}.py", SOURCE * 20) for i in range(200)}
    with ParseCache(location, FORMAT, bound) as first:
        first.put_many([(f"blob{i}", outcomes[i]) for i in range(100)])
    with ParseCache(location, FORMAT, bound) as second:  # a later run reads the first ten again
        assert len(second.get_many([(f"pkg/m{i}.py", f"blob{i}") for i in range(10)])) == 10
    with ParseCache(location, FORMAT, bound) as third:
        for i in range(100, 200):
            third.put_many([(f"blob{i}", outcomes[i])])

    with sqlite3.connect(location) as raw:
        (stored,) = raw.execute("SELECT sum(length(outcome)) FROM parses").fetchone()
    assert stored <= bound
    kept = {int(path[5:-3]) for path in
            ParseCache(location, FORMAT, bound).get_many([(f"pkg/m{i}.py", f"blob{i}") for i in outcomes])}
    assert set(range(10)) <= kept  # read by the second run: kept
    assert 10 not in kept and len(kept) < len(outcomes)  # used only by the first run: dropped first
    assert set(range(190, 200)) <= kept  # just written


def test_a_cache_of_the_earlier_layout_is_started_afresh(tmp_path):
    location = tmp_path / "cache.sqlite3"
    with sqlite3.connect(location) as raw:
        raw.execute("CREATE TABLE parses (key TEXT PRIMARY KEY, outcome BLOB NOT NULL)")
        raw.execute("INSERT INTO parses VALUES ('x', x'00')")
    with ParseCache(location, FORMAT) as cache:
        cache.put_many([("b1", parse_file("a.py", SOURCE))])
        assert list(cache.get_many([("a.py", "b1")])) == ["a.py"]


def test_the_bound_comes_from_spider_parse_cache_mb_and_a_bad_one_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SPIDER_PARSE_CACHE", str(tmp_path / "cache.sqlite3"))
    monkeypatch.setenv("SPIDER_PARSE_CACHE_MB", "64")
    with parse_cache.open_parse_cache(FORMAT, Settings.from_env()) as cache:
        assert cache.max_bytes == 64 << 20
    for bad in ("lots", "0", "-5", "²"):  # a digit int() does not read
        monkeypatch.setenv("SPIDER_PARSE_CACHE_MB", bad)
        with pytest.raises(SpiderError, match=f"SPIDER_PARSE_CACHE_MB must be a positive whole number, not '{bad}'"):
            parse_cache.open_parse_cache(FORMAT, Settings.from_env())


def test_a_cache_whose_table_changed_under_it_misses_and_stores_nothing_instead_of_failing(tmp_path):
    location = tmp_path / "cache.sqlite3"
    with ParseCache(location, FORMAT) as cache:
        cache.put_many([("b1", parse_file("a.py", SOURCE))])
        with sqlite3.connect(location) as other:  # another spider version replaced the table meanwhile
            other.execute("DROP TABLE parses")
            other.execute("CREATE TABLE parses (key TEXT PRIMARY KEY)")
        assert cache.get_many([("a.py", "b1")]) == {}
        cache.put_many([("b2", parse_file("b.py", SOURCE))])


def filled_cache(location: Path) -> list[tuple[str, str]]:
    """A cache of 100 files' results (several hundred pages); returns their (path, blob) pairs."""
    with ParseCache(location, FORMAT) as cache:
        cache.put_many([(f"blob{i}", parse_file(f"pkg/m{i}.py", SOURCE * 20)) for i in range(100)])
    return [(f"pkg/m{i}.py", f"blob{i}") for i in range(100)]


@pytest.mark.parametrize("damage", [garbage, truncated])
def test_a_damaged_cache_file_is_started_afresh_and_says_so_once(tmp_path, damage):
    location = tmp_path / "cache.sqlite3"
    files = filled_cache(location)
    damage(location)

    with ParseCache(location, FORMAT) as cache:
        assert cache.rebuilt and cache.get_many(files) == {}
        cache.put_many([("blob0", parse_file("pkg/m0.py", SOURCE * 20))])

    with ParseCache(location, FORMAT) as again:
        assert not again.rebuilt and list(again.get_many(files)) == ["pkg/m0.py"]
    assert stat.S_IMODE(location.stat().st_mode) == 0o600


def test_a_cache_damaged_while_open_is_started_afresh_at_its_next_lookup(tmp_path):
    location = tmp_path / "cache.sqlite3"
    files = filled_cache(location)
    with ParseCache(location, FORMAT) as cache:
        garbage(location)

        assert cache.get_many(files) == {} and cache.rebuilt
        cache.put_many([("blob1", parse_file("pkg/m1.py", SOURCE))])
        assert list(cache.get_many(files)) == ["pkg/m1.py"]


@pytest.mark.parametrize("cls", [Entity, Import, Export, Reference])
def test_the_cached_fact_types_pickle_as_their_constructor_arguments_and_come_back_equal(cls):
    values = {f.name: f"value of {f.name}" for f in fields(cls)}  # a distinct value per field: order matters
    fact = cls(**values)

    restored = pickle.loads(pickle.dumps(fact, protocol=5))

    assert restored == fact and type(restored) is cls
    assert fact.__reduce__() == (cls, tuple(values.values()))  # not dataclasses' per-object fields() walk
