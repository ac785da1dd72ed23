"""Embed stage: every Function of a snapshot gets a vector per window of its code (`Embedder.function_windows`,
at most WINDOWS_PER_FUNCTION); code already embedded for this repo is reused.

A point is keyed by (repo, content_hash), so re-indexing another commit embeds only the functions whose id or
code changed; the others are left untouched (the graph records which snapshots hold them). Vectors are written
chunk by chunk: an interrupted run loses at most one chunk, and the next run skips what is stored. New vectors
are then indexed (HNSW) so searches stay fast.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

from spider.core.records import EmbedStats, GraphNode
from spider.core.schema import Label
from spider.indexer.models.embedding import Embedder
from spider.indexer.vectors.store import WINDOW, WINDOWS_PER_FUNCTION, VectorStore

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
    """`nodes` without code (taken from a base snapshot) get it from `code_of(ids)`. `shared`: the snapshot's
    other functions, known to have vectors of every window (counted as reused, not looked up). A function with a
    vector may still lack those of its later windows (embedded by a spider that made none, or interrupted):
    they are looked up and embedded too."""
    started = time.perf_counter()
    functions: dict[str, GraphNode] = {n.content_hash: n  # type: ignore[misc]  # every Function has a content hash
                                       for n in nodes if n.label == Label.FUNCTION}
    codeless = [n.id for n in functions.values() if n.code is None]
    if codeless and code_of is not None:
        code = code_of(codeless)
        functions = {h: n if n.code is not None else dataclasses.replace(n, code=code[n.id])
                     for h, n in functions.items()}
    windows = {h: embedder.function_windows(n.id, n.code or "", WINDOWS_PER_FUNCTION) for h, n in functions.items()}
    missing = vectors.missing(repo, list(functions))
    todo = [(h, w) for h in missing for w in range(1, len(windows[h]) + 1)]
    todo += vectors.missing_windows(repo, {h: len(texts) for h, texts in windows.items()
                                           if len(texts) > 1 and h not in missing})
    # Longest first across the whole queue (not just within a chunk): batches pad less. Ties by id and window.
    todo.sort(key=lambda job: (-len(windows[job[0]][job[1] - 1]), functions[job[0]].id, job[1]))
    if todo:
        vectors.reserve(repo, len(todo))
    advance = progress("embedding functions", len(todo))
    for start in range(0, len(todo), CHUNK):
        chunk = todo[start : start + CHUNK]
        embedded = embedder.embed_documents([windows[h][w - 1] for h, w in chunk], progress=advance)
        points = [(h, vector, point_payload(functions[h], w)) for (h, w), vector in zip(chunk, embedded)]
        vectors.insert(repo, points)
    index_seconds = 0.0
    if todo:
        indexed = progress("indexing vectors", 1)
        index_started = time.perf_counter()
        vectors.build_index(repo)
        index_seconds = time.perf_counter() - index_started
        indexed(1)
    return EmbedStats(embedder.name, embedder.dim, functions=len(functions) + shared, embedded=len(missing),
                      reused=len(functions) + shared - len(missing), seconds=round(time.perf_counter() - started, 3),
                      index_seconds=round(index_seconds, 3), stores=(vectors.store_id,),
                      windows=WINDOWS_PER_FUNCTION, later_windows=sum(w > 1 for _, w in todo))


def point_payload(function: GraphNode, window: int) -> dict:
    payload = {"node_id": function.id, "path": function.path, "language": function.language, "kind": function.kind}
    return payload if window == 1 else {**payload, WINDOW: window}
