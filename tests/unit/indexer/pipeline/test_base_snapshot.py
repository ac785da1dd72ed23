"""Choosing the base of an incremental run: a base commit missing from the clone is passed over, but a git
failure on one that is there surfaces (it must not quietly turn the run into a full one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from spider.core.errors import CorruptRepository
from spider.indexer.graph.snapshot import Snapshot
from spider.indexer.pipeline.base_snapshot import base_at, choose_base
from spider.indexer.pipeline.graph_format import graph_format
from spider.indexer.source.walk import open_commit, select_files

from tests.fixtures.gitrepo import git, make_repo


class IndexedSnapshots:
    """The one thing choose_base asks the graph: the snapshots of the repository, newest first."""

    def __init__(self, *shas: str) -> None:
        self.rows = [Snapshot(repo="r", snapshot=sha, rev=None, complete=True, seq=seq, writer=None, indexed_at=None,
                              stats={"graph_format": graph_format()}) for seq, sha in enumerate(shas)]

    def list_snapshots(self, repo: str) -> list[Snapshot]:
        return self.rows


def two_commits(root: Path) -> tuple[str, str]:
    _, first = make_repo(root, {"a.py": "def one():\n    return 1\n"})
    _, second = make_repo(root, {"b.py": "def two():\n    return 2\n"}, "add b")
    return first, second


def test_an_indexed_commit_missing_from_the_clone_is_passed_over(tmp_path):
    root = tmp_path / "repo"
    first, second = two_commits(root)
    commit = open_commit(root, second)

    base = choose_base(IndexedSnapshots("0" * 40, first), commit, "r", select_files(commit).files)

    assert base is not None and base.snapshot == first


def test_an_unreadable_base_commit_is_an_error_not_a_full_run(tmp_path):
    root = tmp_path / "repo"
    first, second = two_commits(root)
    commit = open_commit(root, second)
    files = select_files(commit).files
    tree = git(root, "rev-parse", f"{first}^{{tree}}")
    loose = root / ".git" / "objects" / tree[:2] / tree[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"not a zlib stream")

    with pytest.raises(CorruptRepository, match=f"the tree of commit {first} is corrupt"):
        choose_base(IndexedSnapshots(first), commit, "r", files)


def test_a_header_whose_language_the_repository_changes_is_parsed_again(tmp_path):
    """`x.h` is C beside one `.c` file, and C++ once two `.cc` files outnumber it: its blob is the same, its parse
    is not, so the base's is not reused."""
    root = tmp_path / "repo"
    _, first = make_repo(root, {"x.h": "struct S { int f() { return 1; } };\n", "a.c": "", "b.cc": ""})
    _, second = make_repo(root, {"c.cc": ""}, "more C++")
    before = {f.path: f for f in select_files(open_commit(root, first)).files}
    after = {f.path: f for f in select_files(open_commit(root, second)).files}
    assert (before["x.h"].language, after["x.h"].language) == (None, "cpp")
    assert before["x.h"].blob == after["x.h"].blob
    base = base_at(open_commit(root, second), first)
    assert "x.h" not in {f.path for f in base.unchanged(list(after.values()))}
