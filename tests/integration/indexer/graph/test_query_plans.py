"""Statements find nodes by seeks whatever the planner's statistics say.

With stale or misleading index samples (a store emptied and filled again, a first index into a new store) the
planner took the (repo, until) index for `MATCH (a:Function {repo: $repo, id: r.src}) WHERE a.until = $open`: a
scan of every open function per row (an interrupted earlier session recorded 36 s instead of 1 s for sphinx's
first write on a fresh store). With a plain `USING INDEX` hint it still scanned the whole (repo, id) index of the
few Class nodes once per row (gson's 2,725 class -> method CONTAINS rows: 2.5M index entries read, 0.8 s). The
statements carry `USING INDEX SEEK` hints, and the relationship writes find their ends by element id; these tests
mislead the planner on purpose and check the plans.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from spider import cypher
from spider.indexer.graph.store import GraphStore, templated
from spider.indexer.graph.versions import OPEN

LURE = "test/plan-lure"
CODE_INDEXES = ("function_id", "function_since", "function_until", "function_version")
KEYED_BY_ID = re.compile(r"MATCH \((\w+):\w+ \{repo: \$repo, id: ")
PLACEHOLDERS = {"LABEL": "Function", "SRC": "Function", "DST": "Function", "TYPE": "INVOKES"}
PROBE = f"MATCH (a:Function {{repo: $repo, id: $id}}) WHERE a.until = {OPEN} RETURN a"  # as the writes were


def _operators(plan: dict) -> list[tuple[str, str]]:
    """(operator type, details) of every operator of the plan."""
    found = [(plan["operatorType"], plan["args"].get("Details", ""))]
    for child in plan.get("children", []):
        found += _operators(child)
    return found


def _seeks(plan: dict) -> list[str]:
    return [details for operator, details in _operators(plan) if "IndexSeek" in operator]


def _run(store: GraphStore, statement: str, **params) -> list[dict]:
    """In an auto-commit transaction (what CALL … IN TRANSACTIONS needs)."""
    with store.driver.session(database=store.settings.database) as session:
        return session.run(statement, params).data()


def _plan(store: GraphStore, statement: str) -> dict:
    with store.driver.session(database=store.settings.database) as session:
        return session.run("EXPLAIN " + statement).consume().plan


def _resample(store: GraphStore) -> None:
    for index in CODE_INDEXES:
        _run(store, f"CALL db.resampleIndex('{index}')")
    _run(store, "CALL db.prepareForReplanning()")


@pytest.fixture
def misled_planner(store: GraphStore):
    """Many versions of one id with distinct `until`s: the samples say (repo, until) is the selective index."""
    store.ensure_schema()
    existing = _run(store, "MATCH (n:Function) RETURN count(n) AS n")[0]["n"]
    # In batches: on a Neo4j that kept many sessions' graphs the lure outgrew a transaction's memory (1.4 GiB).
    _run(store, "UNWIND range(1, $n) AS i CALL (i) { CREATE (:Function {repo: $repo, id: 'same', since: i, "
                "until: i + 1}) } IN TRANSACTIONS OF 20000 ROWS", n=max(20_000, 3 * existing), repo=LURE)
    try:
        deadline = time.monotonic() + 60
        while True:
            _resample(store)
            if any("(repo, until)" in seek for seek in _seeks(_plan(store, PROBE))):
                break
            assert time.monotonic() < deadline, "the lure did not mislead the planner: this test would prove nothing"
            time.sleep(1)
        yield
    finally:
        _run(store, "MATCH (n:Function {repo: $repo}) CALL (n) { DELETE n } IN TRANSACTIONS", repo=LURE)
        _resample(store)


def _statements_keyed_by_id() -> list[tuple[str, str, set[str]]]:
    """(file, statement, the variables it finds by id) of every statement of cypher/ that finds nodes by id."""
    found = []
    for path in sorted(Path(cypher.__file__).parent.glob("**/*.cypher")):
        for statement in cypher.statements(templated(path.stem, **PLACEHOLDERS)):
            if keyed := set(KEYED_BY_ID.findall(statement)):
                found.append((path.stem, statement, keyed))
    return found


def test_statements_that_find_nodes_by_id_seek_the_id_index(store: GraphStore, misled_planner):
    statements = _statements_keyed_by_id()
    assert {"version_open_elements", "version_close_nodes", "version_props", "functions_by_id",
            "expand", "neighbourhood", "callers", "callees", "file_outline"} <= {name for name, _, _ in statements}
    for name, statement, keyed in statements:
        operators = _operators(_plan(store, statement))
        for variable in keyed:
            found_by = [(op, details) for op, details in operators if re.match(rf"(RANGE INDEX |UNIQUE )?{variable}:", details)]
            assert found_by, f"{name}: no operator finds {variable}"
            wrong = [(op, details) for op, details in found_by
                     if "IndexSeek" not in op or not re.search(r":\w+\(repo, id(, since)?\)", details)]
            assert not wrong, f"{name}: {variable} is not found by a seek of its (repo, id) index: {wrong}"


def test_relationship_writes_find_their_ends_by_element_id(store: GraphStore, misled_planner):
    for name in ("version_create_edges", "version_close_edges"):
        operators = _operators(_plan(store, templated(name, **PLACEHOLDERS)))
        assert sorted(details for op, details in operators if "NodeByElementIdSeek" in op) == [
            "a WHERE elementId(a) = r.src", "b WHERE elementId(b) = r.dst"], name
        assert not [op for op, _ in operators if "Scan" in op or "Expand(All)" in op], name
