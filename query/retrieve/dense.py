"""Dense retrieval (the paper's DER): embed the issue, take the nearest functions of one snapshot."""

from __future__ import annotations

import json
from pathlib import Path

from spider import cypher
from spider.core.cache_files import read_while_unchanged, write_atomically
from spider.core.errors import ConfigurationError
from spider.core.records import EmbedStats
from spider.indexer.graph.store import GraphStore
from spider.indexer.languages import is_test_code
from spider.indexer.models.embedding import Embedder
from spider.indexer.vectors.embed_stage import recorded_here
from spider.indexer.vectors.store import Members, VectorStore, members_of

_MEMBERS = "function_members.json"


def snapshot_members(store: GraphStore, repo: str, snapshot: str, without_tests: bool = False) -> Members:
    """The snapshot's functions (its test code left out where `without_tests`) as members of a vector search
    (point key -> node id, content hash; a content hash covers the id and the code): read from the snapshot's
    query cache, or from the graph and cached."""
    path = store.snapshot_cache(repo, snapshot) / _MEMBERS
    if without_tests:
        members = snapshot_members(store, repo, snapshot)
        return read_while_unchanged(path, lambda: {key: member for key, member in members.items()
                                                   if not is_test_code(member[0])}, variant="without tests") or {}
    kept = read_while_unchanged(path, lambda: _read_members(path))
    if kept is not None:
        return kept
    _, rows = store.read(cypher.load("snapshot_function_members"), {"repo": repo, "snapshot": snapshot})
    members = members_of(repo, rows)  # rows: [id, content_hash]
    write_atomically(path, json.dumps({"point_keys": list(members), "node_ids": [m[0] for m in members.values()],
                                       "content_hashes": [m[1] for m in members.values()]}).encode())
    return members


def _read_members(path: Path) -> Members | None:
    if not path.is_file():
        return None
    cached = json.loads(path.read_text())
    return dict(zip(cached["point_keys"], zip(cached["node_ids"], cached["content_hashes"])))


def require_vectors(vectors: VectorStore, repo: str, snapshot: str, members: Members,
                    embedding: EmbedStats | None) -> None:
    """Fail in one line where `vectors` lacks the snapshot's vectors (they were embedded into another store:
    another machine's, a deleted one), which would otherwise answer with nothing. Cheap where the snapshot's
    `embedding` record names this store (a few members looked up); every member where it does not."""
    thorough = not recorded_here(embedding, vectors)
    if not vectors.holds_all(repo, (content_hash for _, content_hash in members.values()), thorough):
        raise ConfigurationError(f"{vectors.where} lacks the vectors of {repo} @ {snapshot[:12]} (they were embedded "
                                 f"into another vector store): run `spider index PATH --repo {repo} --rev {snapshot[:12]}` "
                                 "with this vector store to embed them here")


def dense_ranking(
    embedder: Embedder, vectors: VectorStore, store: GraphStore, repo: str, snapshot: str, issue: str, n: int,
    embedding: EmbedStats | None, without_tests: bool = False,
) -> list[tuple[str, float]]:
    """Top-n (node id, cosine score) of the snapshot's functions (its test code left out where `without_tests`),
    best first, ties by node id; `embedding` is the snapshot's record of it (`store.snapshot_embedding`). The
    search itself leaves the others out, so n are found whatever share of the snapshot they are."""
    require_vectors(vectors, repo, snapshot, snapshot_members(store, repo, snapshot), embedding)
    members = snapshot_members(store, repo, snapshot, without_tests)
    query = embedder.embed_query(issue)
    hits = vectors.search(query, repo, limit=n, members=members)
    return [(hit.node_id, hit.score) for hit in hits]
