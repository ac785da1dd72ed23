"""The first stage: one snapshot's functions ranked for an issue, the pool the graph steps expand around."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from spider.indexer.errors import InvalidInput
from spider.indexer.graph.store import GraphStore
from spider.indexer.vectors.embedding import open_embedder
from spider.indexer.vectors.store import VectorStore, open_vector_store
from spider.query.results import Origin
from spider.query.retrieve.bm25 import snapshot_index
from spider.query.retrieve.dense import dense_ranking


@dataclass
class Ranking:
    """A first-stage ranking of one snapshot: (id, score) best first, and what produced it."""

    scored: list[tuple[str, float]]
    origin: Origin  # dense or bm25
    model: str | None = None
    seconds: dict[str, float] = field(default_factory=dict)


def first_stage(store: GraphStore, repo: str, snapshot: str, issue: str, origin: Origin, n: int,
                embed_model: str | None = None, vectors: VectorStore | None = None) -> Ranking:
    """Dense or BM25 top-n. Dense opens the vector store for the query unless a process that keeps it open
    (it is single-process on Edge) passes it as `vectors`."""
    start = time.perf_counter()
    if origin == Origin.BM25:
        scored = snapshot_index(store, repo, snapshot).search(issue, n)
        return Ranking(scored, origin, seconds={"bm25": round(time.perf_counter() - start, 4)})
    embedding = store.snapshot_embedding(repo, snapshot)
    model = embed_model or (embedding.model if embedding else None)
    if model is None:
        raise InvalidInput(f"{repo} @ {snapshot[:12]} was indexed without embeddings: "
                           "re-index it without --no-embed, or use --method bm25 or spisr")
    embedder = open_embedder(model)
    loaded = time.perf_counter()
    if vectors is not None:
        scored = dense_ranking(embedder, vectors, store, repo, snapshot, issue, n)
    else:
        with open_vector_store(embedder.name, embedder.dim) as opened:
            scored = dense_ranking(embedder, opened, store, repo, snapshot, issue, n)
    seconds = {"model load": round(loaded - start, 4), "dense": round(time.perf_counter() - loaded, 4)}
    return Ranking(scored, origin, embedder.name, seconds)
