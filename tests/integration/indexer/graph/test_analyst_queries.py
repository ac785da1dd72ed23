"""The analyst queries added for Neo4j Browser (cypher/hotspots.cypher, cypher/changed.cypher,
cypher/call_graph.cypher), run by name through `spider cypher` on a repository indexed at two commits, against what
the commit did."""

from __future__ import annotations

import json

from tests.fixtures.gitrepo import git, make_repo
from tests.fixtures.shop import PYTHON
from tests.integration.helpers import invoke_index_json, invoke_spider, succeeded, unique_name


def rows(*args: str) -> list[dict]:
    return json.loads(succeeded(invoke_spider("cypher", *args, "--json")))


def test_hotspots_and_what_a_commit_changed(tmp_path, neo4j_settings):
    root, parent = make_repo(tmp_path / "shop", PYTHON.files)
    name = unique_name()
    invoke_index_json(root, name)
    payments = PYTHON.files["shop/payments.py"].replace("return _send(amount)", "return _send(round(amount, 2))")
    (root / "shop" / "payments.py").write_text(payments + "\n\ndef refund(amount):\n    return charge(-amount)\n")
    git(root, "rm", "-q", "scripts/run.py")
    _, commit = make_repo(root, {}, message="refund; no script")
    invoke_index_json(root, name)

    top = rows("hotspots", "--repo", name, "--param", "limit=2")  # the newest snapshot: the commit
    assert [(r["id"], r["fan_in"], r["caller_files"]) for r in top] == [
        ("shop/payments.py:charge", 2, 2), ("shop/models.py:DiscountedOrder", 1, 1)]

    changed = rows("changed", "--repo", name, "--param", f"old={parent[:10]}", "--param", f"snapshot={commit}")
    assert {(r["change"], r["label"], r["id"]) for r in changed} == {
        ("removed", "Directory", "scripts"), ("removed", "File", "scripts/run.py"),
        ("removed", "Function", "scripts/run.py:main"),
        ("changed", "File", "shop/payments.py"), ("changed", "Function", "shop/payments.py:charge"),
        ("added", "Function", "shop/payments.py:refund"),
    }
    added = next(r for r in changed if r["change"] == "added")
    assert (added["path"], added["start_line"], added["end_line"]) == ("shop/payments.py", 31, 32)
    assert rows("changed", "--repo", name, "--param", f"old={commit}") == []  # a snapshot against itself


def test_the_call_graph_draws_one_snapshot_s_calls(tmp_path, neo4j_settings):
    root, parent = make_repo(tmp_path / "shop", PYTHON.files)
    name = unique_name()
    invoke_index_json(root, name)
    payments = PYTHON.files["shop/payments.py"]
    (root / "shop" / "payments.py").write_text(payments + "\n\ndef refund(amount):\n    return charge(-amount)\n")
    _, commit = make_repo(root, {}, message="refund")
    invoke_index_json(root, name)

    def calls(*snapshot: str) -> list[tuple[str, str, str]]:
        found = rows("call_graph", "--repo", name, "--param", "id=shop/payments.py:charge", *snapshot)
        return [(r["target"]["properties"]["id"], r["call"]["type"], r["other"]["properties"]["id"]) for r in found]

    before = calls("--param", f"snapshot={parent}")
    assert before and all(edge[:2] == ("shop/payments.py:charge", "INVOKES") for edge in before)
    assert calls() == sorted([*before, ("shop/payments.py:charge", "INVOKES", "shop/payments.py:refund")],
                             key=lambda edge: edge[2])  # the newest snapshot: the commit's, one call more
