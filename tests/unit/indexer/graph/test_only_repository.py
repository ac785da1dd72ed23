"""How an error names the indexed repositories (a command without `--repo`, an unknown `--repo`): an
organisation indexes hundreds, and the error stays one readable line."""

from __future__ import annotations

from spider.indexer.graph.store import indexed_repositories


def test_a_few_repositories_are_all_named_in_order():
    assert indexed_repositories(["b/x", "a/y", "b/x"]) == "indexed: a/y, b/x"


def test_an_organisation_s_many_repositories_are_named_ten_and_counted():
    repos = [f"org/service-{n:03}" for n in range(250)]
    assert indexed_repositories(repos) == ("indexed: " + ", ".join(f"org/service-{n:03}" for n in range(10))
                                           + ", … 250 in all: `spider snapshots` lists them")


def test_nothing_indexed_says_how_to_index():
    assert indexed_repositories([]) == "nothing is indexed yet: run `spider index PATH`"
