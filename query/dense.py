"""Dense retrieval (the paper's DER): embed the issue, take the nearest functions of one snapshot."""

from __future__ import annotations

from indexer.embedding import Embedder
from indexer.graph_store import GraphStore
from indexer.vectors import Hit, Members, VectorStore
from query.results import function_info


def snapshot_members(store: GraphStore, repo: str, snapshot: str) -> Members:
    """A vector search's `members`: the hits whose (node id, content hash) is a Function of the snapshot in the
    graph, which is where snapshot membership lives."""

    def members(hits: list[Hit]) -> set[str]:
        where = function_info(store, repo, snapshot, [hit.node_id for hit in hits])
        return {hit.content_hash for hit in hits if where.get(hit.node_id, {}).get("content_hash") == hit.content_hash}

    return members


def dense_ranking(
    embedder: Embedder, vectors: VectorStore, store: GraphStore, repo: str, snapshot: str, issue: str, n: int
) -> list[tuple[str, float]]:
    """Top-n (node id, cosine score), best first, ties by node id."""
    query = embedder.embed_query(issue)
    hits = vectors.search(query, repo, limit=n, members=snapshot_members(store, repo, snapshot))
    return [(hit.node_id, hit.score) for hit in hits]
