"""Dense retrieval (the paper's DER): embed the issue, take the nearest functions of one snapshot."""

from __future__ import annotations

from indexer.embedding import Embedder
from indexer.vectors import VectorStore


def dense_ranking(
    embedder: Embedder, vectors: VectorStore, repo: str, snapshot: str, issue: str, n: int
) -> list[tuple[str, float]]:
    """Top-n (node id, cosine score), best first, ties by node id."""
    query = embedder.embed_query(issue)
    return [(hit.node_id, hit.score) for hit in vectors.search(query, repo, snapshot, limit=n)]
