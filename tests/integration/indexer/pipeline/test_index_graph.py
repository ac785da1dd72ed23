"""Index generated fixture repositories into the real Neo4j and compare the whole graph with what is expected."""

from __future__ import annotations

import posixpath

import pytest
from spider.indexer.graph.versions import delete_snapshot
from spider.indexer.pipeline.index import index_repository

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import FIXTURES, ShopFixture
from tests.integration.helpers import read_graph


def expected_containment(fixture: ShopFixture, files: set[str]) -> set[tuple[str, str]]:
    """CONTAINS derived from ids alone: dir -> subdir/file, file -> top-level entity, entity -> nested; and the
    fixture's classes -> their methods written in other files."""
    edges = set()
    entities = fixture.classes | fixture.functions
    for path in files:
        directory = posixpath.dirname(path)
        edges.add((directory or ".", path))
        while directory:
            edges.add((posixpath.dirname(directory) or ".", directory))
            directory = posixpath.dirname(directory)
    for eid in entities:
        path, qualname = eid.split(":", 1)
        owners = [f"{path}:{qualname[:i]}" for i in range(len(qualname)) if qualname[i] == "." and f"{path}:{qualname[:i]}" in entities]
        edges.add((max(owners, key=len) if owners else path, eid))
    return edges | fixture.members


@pytest.mark.parametrize("language", sorted(FIXTURES))
def test_fixture_repository_graph_is_exactly_as_written(language, tmp_path, store, repo_name):
    fixture = FIXTURES[language]
    root, sha = make_repo(tmp_path / "repo", fixture.files)

    report = index_repository(store, str(root), repo=repo_name)

    assert report.snapshot == sha and not report.already_indexed
    assert {f["path"]: f["reason"] for f in report.skipped_files
            if f["reason"] != "no classes, functions or imports"} == fixture.skipped
    nodes, edges = read_graph(store, repo_name, sha)
    files = {e.split(":", 1)[0] for e in fixture.classes | fixture.functions} | {
        src for src, _ in fixture.imports if ":" not in src
    } | fixture.manifests
    directories = {"."} | {d for f in files for d in _ancestors(f)}
    assert {(n["label"], n["id"]) for n in nodes} == (
        {("Directory", d) for d in directories} | {("File", f) for f in files}
        | {("Class", c) for c in fixture.classes} | {("Function", f) for f in fixture.functions}
    )
    assert all(e["same"] for e in edges), "an edge leaves its snapshot"
    by_type = {t: {(e["src"], e["dst"]) for e in edges if e["type"] == t} for t in ("CONTAINS", "INVOKES", "INHERITS", "IMPORTS")}
    assert by_type["CONTAINS"] == expected_containment(fixture, files)
    assert by_type["INVOKES"] == fixture.expected_calls
    assert by_type["INHERITS"] == fixture.inherits
    assert by_type["IMPORTS"] == fixture.imports
    assert {e["resolution"] for e in edges if e["type"] == "CONTAINS" and (e["src"], e["dst"]) not in fixture.members} \
        == {None}
    assert {e["resolution"] for e in edges if e["type"] != "CONTAINS"} <= {"exact", "import", "heuristic"}
    for node in nodes:  # every entity's code is exactly its lines of the committed file
        if node["label"] in ("Class", "Function"):
            path = node["id"].split(":", 1)[0]
            lines = fixture.files[path].splitlines(keepends=True)
            assert node["code"] == "".join(lines[node["start"] - 1 : node["end"]])
            assert node["language"] == language and len(node["hash"]) == 64
    state = store.snapshot_state(repo_name, sha)
    assert state.complete is True
    assert state.stats["nodes"] == {label: sum(1 for n in nodes if n["label"] == label) for label in {n["label"] for n in nodes}}


def _ancestors(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def test_indexing_the_same_commit_again_changes_nothing(tmp_path, store, repo_name):
    root, sha = make_repo(tmp_path / "repo", FIXTURES["python"].files)
    index_repository(store, str(root), repo=repo_name)
    before = read_graph(store, repo_name, sha)

    again = index_repository(store, str(root), repo=repo_name)
    forced = index_repository(store, str(root), repo=repo_name, force=True)

    assert again.already_indexed and not forced.already_indexed
    after = read_graph(store, repo_name, sha)
    key = lambda rows: sorted(map(repr, rows))  # noqa: E731 - order-free comparison of whole rows
    assert key(after[0]) == key(before[0]) and key(after[1]) == key(before[1])
    assert forced.nodes == again.nodes and forced.relationships == again.relationships


def test_a_new_commit_is_a_separate_snapshot_and_deleting_one_leaves_the_other(tmp_path, store, repo_name):
    root, first = make_repo(tmp_path / "repo", FIXTURES["python"].files)
    index_repository(store, str(root), repo=repo_name)
    _, second = make_repo(root, {"shop/extra.py": "def extra():\n    return 1\n"}, message="second")
    index_repository(store, str(root), repo=repo_name)

    snapshots = {s.snapshot: s for s in store.list_snapshots(repo_name)}
    assert set(snapshots) == {first, second} and all(s.complete for s in snapshots.values())
    kept = read_graph(store, repo_name, second)
    delete_snapshot(store, repo_name, first)  # every version of it is also the second's: nothing else goes
    assert [s.snapshot for s in store.list_snapshots(repo_name)] == [second]
    assert read_graph(store, repo_name, second) == kept
    assert read_graph(store, repo_name, first) == ([], [])
    nodes, _ = read_graph(store, repo_name, second)
    assert ("Function", "shop/extra.py:extra") in {(n["label"], n["id"]) for n in nodes}


def test_older_revision_of_a_bare_repository(tmp_path, store, repo_name):
    root, first = make_repo(tmp_path / "repo", {"a.py": "def one():\n    return 1\n"})
    make_repo(root, {"a.py": "def one():\n    return 1\n\ndef two():\n    return one()\n"}, message="two")
    bare = tmp_path / "bare.git"
    from tests.fixtures.gitrepo import git

    git(tmp_path, "clone", "-q", "--bare", str(root), str(bare))

    report = index_repository(store, str(bare), repo=repo_name, rev="HEAD~1")

    assert report.snapshot == first
    nodes, _ = read_graph(store, repo_name, first)
    assert {n["id"] for n in nodes if n["label"] == "Function"} == {"a.py:one"}
