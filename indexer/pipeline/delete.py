"""Deleting snapshots: one named by a prefix of its commit sha, or all but the newest few of each repository;
with them go the vectors that no snapshot left in the graph uses."""

from __future__ import annotations

from spider.core.errors import InvalidInput, SnapshotNotFound
from spider.core.settings import Settings, settings_or_env
from spider.indexer.graph import versions as graph_versions
from spider.indexer.graph.snapshot import Snapshot
from spider.indexer.graph.store import GraphStore
from spider.indexer.vectors.open_store import open_vector_store


def find_snapshot(store: GraphStore, repo: str, prefix: str) -> str:
    """The sha of the one snapshot of `repo`, complete or not, that starts with `prefix` (any case); more than one
    is an error, not a choice: a delete must never go by a guess."""
    matches = [r.snapshot for r in store.list_snapshots(repo) if r.snapshot.startswith(prefix.lower())]
    if not matches:
        raise SnapshotNotFound(f"no snapshot {prefix!r} of repository {repo!r} (see `spider snapshots list`)")
    if len(matches) > 1:
        raise InvalidInput(f"{prefix!r} matches {len(matches)} snapshots of {repo}: give more of the sha")
    return matches[0]


def snapshots_to_prune(store: GraphStore, keep: int, repo: str | None = None) -> list[tuple[str, str]]:
    """(repo, sha) of each complete snapshot past the `keep` most recently indexed of its repository (of `repo`
    only, if given). Incomplete snapshots are being written: they are neither kept nor chosen."""
    by_repo: dict[str, list[Snapshot]] = {}
    for row in store.list_snapshots(repo):  # newest first within a repository
        if row.complete:
            by_repo.setdefault(row.repo, []).append(row)
    return [(name, row.snapshot) for name, rows in by_repo.items() for row in rows[keep:]]


def delete_snapshot(store: GraphStore, repo: str, snapshot: str, settings: Settings | None = None) -> tuple[int, int]:
    """A snapshot's graph, query cache and the vectors no snapshot of the repo left in the graph uses; returns
    (nodes, vectors) deleted. The vector store is opened first, so a busy store stops before anything is gone;
    the graph goes before the vectors, so an interruption leaves unused vectors (freed by the next delete) rather
    than a snapshot without its vectors. All of it holds the repository's writer lock: an index run writes its
    functions into the graph before it looks for their vectors, so between reading which vectors are used and
    deleting the rest, no run can start counting on one of them (a Qdrant server serves several processes). The
    vector store is the one `settings` name (the door's; None, for a test or bench script: the environment's)."""
    embedding = store.snapshot_embedding(repo, snapshot)
    if not embedding:
        return graph_versions.delete_snapshot(store, repo, snapshot), 0
    with open_vector_store(embedding.model, embedding.dim, settings_or_env(settings)) as vectors, \
            vectors.writing(repo), graph_versions.hold_repository(store, repo) as writer:
        deleted = writer.delete(snapshot)
        return deleted, vectors.delete_unused(repo, store.repo_function_hashes(repo))
