"""The stages of indexing one commit, as plain functions: the local run (`pipeline.index`) and the Celery tasks
(`indexer.distributed.tasks`) call the same ones; only who calls `parse_batch` differs (a process pool there,
workers in the distributed run)."""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from enum import StrEnum
from itertools import repeat
from operator import attrgetter
from typing import Callable, Iterable, Iterator, Protocol

from spider.core.errors import SnapshotConflict
from spider.core.records import CodeGraph, EmbedStats, GraphEdge, GraphNode
from spider.core.schema import Label
from spider.core.settings import Settings
from spider.indexer.graph.store import GraphStore
from spider.indexer.graph.version_diff import digest_of, version_diff
from spider.indexer.graph.versions import DIGEST_FILE, cached_digest, hold_repository, stored_nodes
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.models.embedding import Embedder
from spider.indexer.parse.cache import open_parse_cache
from spider.indexer.parse.facts import UNREADABLE_BLOB, FileFacts, ParseOutcome
from spider.indexer.pipeline.base_snapshot import BaseSnapshot
from spider.indexer.pipeline.graph_format import graph_format
from spider.indexer.pipeline.report import IncrementalRun, IndexReport, VersionsWritten
from spider.indexer.resolve.codegraph import build_graph, keeps_file
from spider.indexer.resolve.incremental import STATE_FILE, ResolutionRun, ResolutionState, resolve_from
from spider.indexer.source.walk import Commit, FileSelection, SourceFile, read_blobs
from spider.indexer.vectors.embed_stage import embed_snapshot, recorded_here
from spider.indexer.vectors.store import WINDOWS_PER_FUNCTION, VectorStore

PARALLEL_MIN_BYTES = 24_000_000  # measured on 2 cores: below this, starting workers and shipping results back cost more than they save
BATCH_FILES = 64


class Progress(Protocol):
    def __call__(self, stage: str, total: int) -> Callable[[int], None]: ...


def no_progress(stage: str, total: int) -> Callable[[int], None]:
    return lambda n: None


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Run without Python's cyclic garbage collector. Indexing builds millions of long-lived, acyclic objects
    (facts, nodes, edges, resolution state), each batch of which made it scan the growing heap again: on a
    one-file change of a 22k-function repository that was 0.45 of 1.6 s. What indexing frees, refcounting frees;
    the few cycles it leaves wait for the next collection after the run."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse_batch(commit: Commit, files: list[SourceFile]) -> list[ParseOutcome]:
    """The unit of parallel work: read a batch of blobs and parse each (Celery's parse task calls this)."""
    blobs = dict(read_blobs(commit.git_dir, sorted({f.blob for f in files})))
    return [parse_file(f.path, data, f.language) if (data := blobs[f.blob]) is not None
            else ParseOutcome(f.path, skipped=UNREADABLE_BLOB) for f in files]


def batches(files: list[SourceFile]) -> Iterator[list[SourceFile]]:
    for i in range(0, len(files), BATCH_FILES):
        yield files[i : i + BATCH_FILES]


def parse_all(commit: Commit, files: list[SourceFile], progress: Progress = no_progress) -> list[ParseOutcome]:
    advance = progress("parsing", len(files))
    outcomes: list[ParseOutcome] = []
    workers = os.cpu_count() or 1
    if workers == 1 or sum(f.size for f in files) < PARALLEL_MIN_BYTES:
        for batch in batches(files):
            outcomes.extend(parse_batch(commit, batch))
            advance(len(batch))
        return outcomes
    work = list(batches(files))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for batch, result in zip(work, pool.map(parse_batch, repeat(commit), work)):
            outcomes.extend(result)
            advance(len(batch))
    return outcomes


def collect_outcomes(
    report: IndexReport,
    commit: Commit,
    files: list[SourceFile],
    base: BaseSnapshot | None,
    parsed: dict[str, ParseOutcome] | None = None,
    progress: Progress = no_progress,
    *,
    settings: Settings,
) -> tuple[list[ParseOutcome], dict[str, dict[str, str]]]:
    """Every file's parse outcome, in `files` order: those in `parsed` (parsed elsewhere, e.g. by Celery tasks),
    the cached ones of files unchanged since `base` (in the parse cache `settings` name), and a parse of the rest,
    which is cached for next time. Also returns the files served from the cache (their nodes are the base's) with
    their functions' content hashes, and records the incremental run on the report."""
    parsed = dict(parsed or {})
    reusable = base.unchanged([f for f in files if f.path not in parsed]) if base else []
    with open_parse_cache(graph_format(), settings) as cache:
        cached = cache.get_many((f.path, f.parsed_as) for f in reusable)
        todo = [f for f in files if f.path not in parsed and f.path not in cached]
        fresh = parse_all(commit, todo, progress)
        cache.put_many(zip((f.parsed_as for f in todo), fresh))
    if cache.rebuilt:
        report.notes.append(f"the parse cache at {cache.location} was corrupt: rebuilt")
    if base is not None:
        report.incremental = IncrementalRun(base.snapshot, base.changed_count(files), len(files) - len(cached))
    by_path = {**{path: c.outcome for path, c in cached.items()}, **parsed, **{o.path: o for o in fresh}}
    return [by_path[f.path] for f in files], {path: c.function_hashes for path, c in cached.items()}


def graph_of(
    report: IndexReport, selection: FileSelection, outcomes: list[ParseOutcome],
    copied: dict[str, dict[str, str]] | None = None, earlier: ResolutionState | None = None,
) -> tuple[CodeGraph, ResolutionState | None]:
    """Build the snapshot's graph from parse outcomes (see `build_graph` for `copied`), resolving from the base
    snapshot's resolution `earlier` when there is one, and fill the report's file and node counts. Also returns
    the resolution to keep with the snapshot."""
    report.other_files = selection.other
    skipped_files = list(selection.skipped_files)
    warned_files = []
    facts, code = {}, {}
    for outcome in outcomes:
        if outcome.facts is None:
            skipped_files.append((outcome.path, outcome.skipped))  # type: ignore[arg-type]  # set without facts
            continue
        if not keeps_file(outcome.facts):
            skipped_files.append((outcome.path, "no classes, functions or imports"))
            continue
        facts[outcome.path] = outcome.facts
        code[outcome.path] = outcome.code
        if outcome.warnings:
            warned_files.append({"path": outcome.path, "warnings": outcome.warnings})
    report.skipped.update(reason for _, reason in skipped_files)
    report.warnings.update(warning for f in warned_files for warning in f["warnings"])
    report.skipped_files = [{"path": path, "reason": reason} for path, reason in sorted(skipped_files)]
    report.warned_files = sorted(warned_files, key=lambda f: f["path"])
    report.files_parsed = len(facts)
    blobs = {f.path: f.parsed_as for f in selection.files}
    runs: list[ResolutionRun] = []

    def resolve(kept: dict[str, FileFacts]) -> list[GraphEdge]:
        edges, run = resolve_from(kept, {path: blobs[path] for path in kept}, graph_format(), earlier)
        runs.append(run)
        return edges

    graph = build_graph(facts, report.repo, code, copied, resolve)  # type: ignore[arg-type]  # code: set with facts
    report.resolution = runs[0].to_json()
    report.nodes = _counts(graph.labels.values())
    report.relationships = _counts(map(attrgetter("type"), graph.edges))
    report.resolutions = _counts(map(attrgetter("resolution"), graph.edges))
    return graph, runs[0].state


def _counts(members: Iterable[StrEnum | None]) -> Counter:
    """How many of each member, by value (counting members, not `.value`s, which is an enum descriptor call per
    item: 0.1 s for a 100k-edge graph)."""
    return Counter({member.value: n for member, n in Counter(members).items() if member is not None})


def earlier_resolution(store: GraphStore, repo: str, base: BaseSnapshot | None) -> ResolutionState | None:
    """The base snapshot's resolution, if this machine kept it."""
    return ResolutionState.load(store.snapshot_cache(repo, base.snapshot) / STATE_FILE, graph_format()) if base \
        else None


def write_graph(
    store: GraphStore, report: IndexReport, graph: CodeGraph, progress: Progress = no_progress, base: str | None = None,
    resolution: ResolutionState | None = None,
) -> list[GraphNode]:
    """Write `graph` as the new head of its repository's versioned graph, replacing what an earlier run of the
    same commit left; the nodes of `graph.copied` are those of snapshot `base`. The snapshot stays incomplete
    (invisible); its digest and `resolution` are kept for the commits indexed from it. Returns the functions it
    created: if the head it was written over is embedded, only they can lack a vector."""
    store.ensure_schema()
    repo = report.repo
    with hold_repository(store, repo) as writer:
        writer.delete(report.snapshot)  # what a crashed or forced earlier run left, if any
        written = {row.snapshot: row for row in writer.snapshots()}
        head_row = next((row for row in written.values() if row.seq == writer.head), None)
        head = cached_digest(store, repo, head_row)
        base_digest = None
        if graph.copied:
            if base not in written:  # deleted or pruned meanwhile
                raise SnapshotConflict(f"the base snapshot {str(base)[:12]} of this incremental run is gone: run again "
                                       "(or with --full)")
            base_digest = head if head_row and head_row.snapshot == base else cached_digest(store, repo, written[base])
        new = digest_of(graph, base_digest)
        diff = version_diff(head, new)
        nodes = {node.id: node for node in graph.nodes}
        from_base = [node_id for node_id in diff.create_nodes if node_id not in nodes]
        if from_base:  # unchanged since the base, but not the head's
            nodes.update((node.id, node) for node in stored_nodes(store, repo, str(base), from_base, new.labels))
        seq, token = writer.write(report.snapshot, report.rev, head, new, diff, nodes, progress)
        new.save(store.snapshot_cache(repo, report.snapshot) / DIGEST_FILE, token)
        if resolution is not None:
            resolution.save(store.snapshot_cache(repo, report.snapshot) / STATE_FILE)
    report.versions = VersionsWritten(seq, token, head_row.snapshot if head_row else None,
                                      nodes_closed=len(diff.close_nodes), nodes_created=len(diff.create_nodes),
                                      relationships_closed=len(diff.close_edges),
                                      relationships_created=len(diff.create_edges))
    return [nodes[node_id] for node_id in diff.create_nodes if new.labels[node_id] == Label.FUNCTION]


def head_is_embedded(store: GraphStore, repo: str, versions: VersionsWritten | None, model: str,
                     vectors: VectorStore) -> bool:
    """Whether the head a snapshot was written over (`IndexReport.versions`) is complete with vectors of `model`
    in `vectors` (not only in another store: another machine's, a deleted one): then every function the snapshot
    shares with it has one there."""
    head = versions.head if versions else None
    state = store.snapshot_state(repo, head) if head else None
    embedding = state.embedding if state and state.complete else None
    return embedded_with(embedding, model) and recorded_here(embedding, vectors)


def embedded_with(embedding: EmbedStats | None, model: str) -> bool:
    """Whether a snapshot's `embedding` holds what embedding it with `model` would write: its vectors, every
    window of every function's (one embedded by a spider that made fewer windows gets the rest; one that made more
    holds all this spider reads)."""
    return embedding is not None and embedding.model == model and embedding.windows >= WINDOWS_PER_FUNCTION


def stored_functions(store: GraphStore, repo: str, snapshot: str, created_only: bool = False) -> list[GraphNode]:
    """A written snapshot's functions, code included (or only those whose version it created)."""
    return [GraphNode(Label.FUNCTION, r["id"], r["name"], r["path"], r["language"], r["kind"], r["start_line"],
                      r["end_line"], r["code"], r["content_hash"])
            for r in store.run_named("snapshot_functions_to_embed", repo=repo, snapshot=snapshot,
                                     created_only=created_only)]


def embed_graph(
    store: GraphStore, report: IndexReport, functions: list[GraphNode], embedder: Embedder,
    progress: Progress = no_progress, shared: int = 0, *, vectors: VectorStore,
) -> EmbedStats:
    """Embed the snapshot's `functions` (the others, `shared` of them, have vectors from its head) into `vectors`
    (the store its caller opened from its settings), and record what it did on the report. Functions of copied
    files have no code here: it is read back from the graph only if they have no vector yet."""

    def code_of(ids: list[str]) -> dict[str, str]:
        return store.function_code(report.repo, report.snapshot, ids)

    report.embedding = embed_snapshot(report.repo, functions, embedder, vectors, progress, code_of, shared)
    return report.embedding


def functions_to_embed(
    store: GraphStore, report: IndexReport, graph: CodeGraph, created: list[GraphNode], embedder: Embedder,
    vectors: VectorStore,
) -> tuple[list[GraphNode], int]:
    """The functions that can lack a vector in `vectors`, and how many others the snapshot has."""
    every = [n for n in graph.nodes if n.label == Label.FUNCTION] + graph.copied_functions
    if head_is_embedded(store, report.repo, report.versions, embedder.name, vectors):
        return created, len(every) - len(created)
    return every, 0
