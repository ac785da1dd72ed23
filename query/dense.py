"""Dense retrieval (the paper's DER): embed the issue, take the nearest functions of one snapshot."""

from __future__ import annotations

import os

import cypher
from indexer.embedding import Embedder
from indexer.graph_store import GraphStore
from indexer.settings import snapshot_cache_dir
from indexer.vectors import VectorStore

_HASHES = "function_hashes.txt"


def snapshot_hashes(store: GraphStore, repo: str, snapshot: str) -> set[str]:
    """The content hashes of the snapshot's functions (a content hash covers the id and the code), which are the
    snapshot's members in the vector store: read from the snapshot's query cache, or from the graph and cached."""
    path = snapshot_cache_dir(repo, snapshot) / _HASHES
    if path.is_file():
        return set(path.read_text().split())
    _, rows = store.read(cypher.load("snapshot_function_hashes"), {"repo": repo, "snapshot": snapshot})
    hashes = {row[0] for row in rows}
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f"{_HASHES}.{os.getpid()}.tmp")
    staging.write_text("\n".join(sorted(hashes)))
    staging.replace(path)  # a reader never sees half a file
    return hashes


def dense_ranking(
    embedder: Embedder, vectors: VectorStore, store: GraphStore, repo: str, snapshot: str, issue: str, n: int
) -> list[tuple[str, float]]:
    """Top-n (node id, cosine score), best first, ties by node id."""
    query = embedder.embed_query(issue)
    hits = vectors.search(query, repo, limit=n, members=snapshot_hashes(store, repo, snapshot))
    return [(hit.node_id, hit.score) for hit in hits]
