"""Embed stage: every Function of a snapshot gets a vector; code already embedded for this repo is reused.

A point is keyed by (repo, content_hash), so re-indexing another commit embeds only the functions whose id or
code changed; the others are left untouched (the graph records which snapshots hold them). Vectors are written
chunk by chunk: an interrupted run loses at most one chunk, and the next run skips what is stored. New vectors
are then indexed (HNSW) so searches stay fast.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

from spider.indexer.parse.facts import GraphNode
from spider.indexer.schema import Label
from spider.indexer.vectors.embed_stats import EmbedStats
from spider.indexer.vectors.embedding import Embedder, function_text
from spider.indexer.vectors.store import VectorStore

CHUNK = 512  # texts embedded and inserted together


def recorded_here(embedding: EmbedStats | None, vectors: VectorStore) -> bool:
    """Whether a snapshot's `embedding` records `vectors` as holding its vectors (None: nothing says otherwise)."""
    return embedding is None or embedding.recorded_in(vectors.store_id)


def embed_snapshot(
    repo: str,
    nodes: list[GraphNode],
    embedder: Embedder,
    vectors: VectorStore,
    progress: Callable[[str, int], Callable[[int], None]],
    code_of: Callable[[list[str]], dict[str, str]] | None = None,
    shared: int = 0,
) -> EmbedStats:
    """`nodes` without code (taken from a base snapshot) get it from `code_of(ids)` if they must be embedded.
    `shared`: the snapshot's other functions, known to have vectors (counted as reused, not looked up)."""
    started = time.perf_counter()
    functions = {n.content_hash: n for n in nodes if n.label == Label.FUNCTION}
    missing = vectors.missing(repo, list(functions))  # type: ignore[arg-type]  # every Function has a content hash
    # Longest first across the whole queue (not just within a chunk): batches pad less. Ties by id.
    todo = [functions[h] for h in missing]
    codeless = [n.id for n in todo if n.code is None]
    if codeless and code_of is not None:
        code = code_of(codeless)
        todo = [n if n.code is not None else dataclasses.replace(n, code=code[n.id]) for n in todo]
    todo.sort(key=lambda n: (-len(n.code or ""), n.id))
    advance = progress("embedding functions", len(todo))
    for start in range(0, len(todo), CHUNK):
        chunk = todo[start : start + CHUNK]
        texts = [function_text(n.id, n.code or "", embedder.max_tokens) for n in chunk]
        embedded = embedder.embed_documents(texts, progress=advance)
        points = [(n.content_hash, vector, {"node_id": n.id, "path": n.path, "language": n.language, "kind": n.kind})
                  for n, vector in zip(chunk, embedded)]
        vectors.insert(repo, points)  # type: ignore[arg-type]  # every Function has a content hash
    index_seconds = 0.0
    if todo:
        indexed = progress("indexing vectors", 1)
        index_started = time.perf_counter()
        vectors.build_index()
        index_seconds = time.perf_counter() - index_started
        indexed(1)
    return EmbedStats(embedder.name, embedder.dim, functions=len(functions) + shared, embedded=len(todo),
                      reused=len(functions) + shared - len(missing), seconds=round(time.perf_counter() - started, 3),
                      index_seconds=round(index_seconds, 3), stores=(vectors.store_id,))
