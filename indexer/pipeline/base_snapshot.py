"""Incremental indexing starts from a base: an indexed snapshot of the same repository whose unchanged files need
not be parsed again (their facts are cached, their nodes are the base's). Which files changed is decided by content, not by history: a file is
unchanged when the base commit has the same path with the same git blob (what `git diff A B` compares).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

from spider.core.errors import RevisionNotFound
from spider.indexer.graph.store import GraphStore
from spider.indexer.pipeline.graph_format import graph_format
from spider.indexer.source.walk import Commit, SourceFile, commit_in, select_files

CANDIDATES = 4  # newest eligible snapshots compared when no parent is indexed; the fewest changed files wins


@dataclass(frozen=True)
class BaseSnapshot:
    snapshot: str
    blobs: dict[str, str]  # path -> blob (and chosen language: `SourceFile.parsed_as`) of the base's files

    def unchanged(self, files: list[SourceFile]) -> list[SourceFile]:
        return [f for f in files if self.blobs.get(f.path) == f.parsed_as]

    def changed_count(self, files: list[SourceFile]) -> int:
        """Files added, modified or removed between the base and `files`."""
        present = {f.path for f in files}
        return len(files) - len(self.unchanged(files)) + len(self.blobs.keys() - present)


def parents_of(commit: Commit) -> list[str]:
    """The commit's parents: the usual base when each new commit of a branch is indexed in turn."""
    listed = subprocess.run(["git", "--git-dir", str(commit.git_dir), "rev-list", "--parents", "-n", "1", commit.sha],
                            capture_output=True, text=True)
    return listed.stdout.split()[1:] if listed.returncode == 0 else []


def base_at(commit: Commit, sha: str) -> BaseSnapshot:
    """The snapshot `sha` as a base for indexing `commit`: RevisionNotFound when its commit is not in the same git
    directory, CorruptRepository when git cannot read it there."""
    return BaseSnapshot(sha, {f.path: f.parsed_as for f in select_files(commit_in(commit.git_dir, sha)).files})


def choose_base(store: GraphStore, commit: Commit, repo: str, files: list[SourceFile]) -> BaseSnapshot | None:
    """The complete snapshot of `repo` to index `commit` against: written by a spider with this graph_format() (so
    equal files give equal nodes), its commit present in `commit`'s git directory, and with the fewest changed
    files among the commit's indexed parents, or else among the newest few. None when there is none (the commit is
    indexed in full)."""
    best: tuple[int, BaseSnapshot] | None = None
    eligible = [
        row.snapshot for row in store.list_snapshots(repo)
        if row.complete and row.versioned and row.snapshot != commit.sha and row.graph_format == graph_format()
    ]
    parents = [sha for sha in parents_of(commit) if sha in eligible]
    for sha in parents or eligible[:CANDIDATES]:  # a parent indexed: the usual case, and close enough
        try:
            base = base_at(commit, sha)
        except RevisionNotFound:  # that commit is not in this clone (a corrupt one is an error: it propagates)
            continue
        changed = base.changed_count(files)
        if best is None or changed < best[0]:
            best = (changed, base)
    return best[1] if best else None
