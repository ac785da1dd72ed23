"""Index one commit: select files -> parse (parallel) -> resolve the graph -> write -> embed -> mark complete.

The stages are plain functions so that the Celery tasks (`indexer.tasks`) and the local, in-process run
share them; only who calls `parse_batch` differs (a process pool here, workers there).

Incremental indexing: when a snapshot of the repository is already indexed (`indexer.base_snapshot`), files
unchanged since it are not parsed (their facts come from `indexer.parse_cache`) and their nodes are copied from
it inside Neo4j; the whole snapshot is still resolved, and every edge written, so the result is the full
rebuild's. Functions whose code did not change keep their vectors (`indexer.vectorize`).
"""

from __future__ import annotations

import multiprocessing
import os
import re
import subprocess
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import repeat
from typing import Callable, Iterator, Protocol

from indexer.base_snapshot import BaseSnapshot, choose_base
from indexer.codegraph import CodeGraph, build_graph, keeps_file
from indexer.embedding import Embedder, open_embedder
from indexer.errors import SpiderError
from indexer.graph_schema import Label
from indexer.graph_store import GraphStore
from indexer.parse import ParseOutcome, parse_file
from indexer.parse_cache import GRAPH_FORMAT, open_parse_cache
from indexer.vectorize import embed_snapshot
from indexer.vectors import open_vector_store
from indexer.walk import Commit, FileSelection, SourceFile, open_commit, read_blobs, select_files

PARALLEL_MIN_BYTES = 24_000_000  # measured on 2 cores: below this, starting workers and shipping results back cost more than they save
BATCH_FILES = 64


class Progress(Protocol):
    def __call__(self, stage: str, total: int) -> Callable[[int], None]: ...


def no_progress(stage: str, total: int) -> Callable[[int], None]:
    return lambda n: None


@dataclass
class IndexReport:
    repo: str
    snapshot: str
    rev: str
    already_indexed: bool = False
    files_parsed: int = 0
    other_files: int = 0
    skipped: Counter = field(default_factory=Counter)
    warnings: Counter = field(default_factory=Counter)
    nodes: Counter = field(default_factory=Counter)
    relationships: Counter = field(default_factory=Counter)
    resolutions: Counter = field(default_factory=Counter)
    embedding: dict | None = None  # EmbedStats.to_json(); None when indexed with --no-embed
    seconds: dict = field(default_factory=dict)
    incremental: dict | None = None  # {base, files_changed, files_reparsed, nodes_copied}; None: a full build

    def stats(self) -> dict:
        """What is stored on the Snapshot node (JSON)."""
        return {
            "files_parsed": self.files_parsed, "other_files": self.other_files,
            "skipped": dict(self.skipped), "warnings": dict(self.warnings),
            "nodes": dict(self.nodes), "relationships": dict(self.relationships),
            "resolutions": dict(self.resolutions), "embedding": self.embedding, "seconds": self.seconds,
            "incremental": self.incremental, "graph_format": GRAPH_FORMAT,
        }


def default_repo_name(commit: Commit) -> str:
    """`owner/name` of the origin remote when there is one, else the repository's directory name."""
    origin = subprocess.run(
        ["git", "--git-dir", str(commit.git_dir), "config", "--get", "remote.origin.url"],
        capture_output=True, text=True,
    ).stdout.strip()
    match = re.search(r"[:/]([^/:]+/[^/]+?)(?:\.git)?/?$", origin)
    if match:
        return match.group(1)
    directory = commit.git_dir.parent if commit.git_dir.name == ".git" else commit.git_dir
    return directory.name.removesuffix(".git")


def parse_batch(commit: Commit, files: list[SourceFile]) -> list[ParseOutcome]:
    """The unit of parallel work: read a batch of blobs and parse each (Celery's parse task calls this)."""
    blobs = dict(read_blobs(commit.git_dir, sorted({f.blob for f in files})))
    return [parse_file(f.path, blobs[f.blob]) for f in files]


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
) -> tuple[list[ParseOutcome], dict[str, dict[str, str]]]:
    """Every file's parse outcome, in `files` order: those in `parsed` (parsed elsewhere, e.g. by Celery tasks),
    the cached ones of files unchanged since `base`, and a parse of the rest, which is cached for next time.
    Also returns the files served from the cache (their nodes must be copied from the base) with their
    functions' content hashes, and records the incremental run on the report."""
    parsed = dict(parsed or {})
    reusable = base.unchanged([f for f in files if f.path not in parsed]) if base else []
    with open_parse_cache() as cache:
        cached = cache.get_many((f.path, f.blob) for f in reusable)
        todo = [f for f in files if f.path not in parsed and f.path not in cached]
        fresh = parse_all(commit, todo, progress)
        cache.put_many(zip((f.blob for f in todo), fresh))
    if base is not None:
        report.incremental = {"base": base.snapshot, "files_changed": base.changed_count(files),
                              "files_reparsed": len(files) - len(cached)}
    by_path = {**{path: c.outcome for path, c in cached.items()}, **parsed, **{o.path: o for o in fresh}}
    return [by_path[f.path] for f in files], {path: c.function_hashes for path, c in cached.items()}


def graph_of(
    report: IndexReport, selection: FileSelection, outcomes: list[ParseOutcome],
    copied: dict[str, dict[str, str]] | None = None,
) -> CodeGraph:
    """Build the snapshot's graph from parse outcomes (see `build_graph` for `copied`) and fill the report's
    file and node counts."""
    report.other_files = selection.other
    report.skipped.update(selection.skipped)
    facts, code = {}, {}
    for outcome in outcomes:
        if outcome.facts is None:
            report.skipped[outcome.skipped] += 1
            continue
        if not keeps_file(outcome.facts):
            report.skipped["no classes, functions or imports"] += 1
            continue
        facts[outcome.path] = outcome.facts
        code[outcome.path] = outcome.code
        report.warnings.update(outcome.warnings)
    report.files_parsed = len(facts)
    graph = build_graph(facts, report.repo, code, copied)
    report.nodes = Counter(label.value for label in graph.labels.values())
    report.relationships = Counter(edge.type.value for edge in graph.edges)
    report.resolutions = Counter(edge.resolution.value for edge in graph.edges if edge.resolution)
    return graph


def write_graph(
    store: GraphStore, report: IndexReport, graph: CodeGraph, progress: Progress = no_progress, base: str | None = None
) -> None:
    """Replace whatever (repo, snapshot) holds with `graph`, copying the nodes of `graph.copied` from snapshot
    `base`; the snapshot stays incomplete (invisible)."""
    store.ensure_schema()
    if store.snapshot_state(report.repo, report.snapshot) is not None:
        store.delete_snapshot(report.repo, report.snapshot)  # a crashed or forced earlier run
    store.begin_snapshot(report.repo, report.snapshot, report.rev)
    if graph.copied:
        if base is None:
            raise ValueError("a graph with copied files needs the base snapshot to copy them from")
        expected = len(graph.labels) - len(graph.nodes)
        copied = store.copy_file_nodes(report.repo, base, report.snapshot, sorted(graph.copied))
        if copied != expected:  # the base was deleted or pruned meanwhile
            raise SpiderError(f"copying {expected} unchanged nodes from snapshot {base[:12]} created {copied}: "
                              "was it deleted meanwhile? Run again (or with --full)")
        if report.incremental is not None:
            report.incremental["nodes_copied"] = copied
    store.write_nodes(report.repo, report.snapshot, graph.nodes, progress("writing nodes", len(graph.nodes)))
    store.write_edges(
        report.repo, report.snapshot, graph.edges, graph.labels, progress("writing relationships", len(graph.edges))
    )


def embed_graph(
    store: GraphStore, report: IndexReport, graph: CodeGraph, embedder: Embedder, progress: Progress = no_progress
) -> None:
    """Embed the snapshot's functions; those of copied files have no code here: it is read back from the graph
    only if they have no vector yet."""
    functions = [n for n in graph.nodes if n.label == Label.FUNCTION] + graph.copied_functions

    def code_of(ids: list[str]) -> dict[str, str]:
        return store.function_code(report.repo, report.snapshot, ids)

    with open_vector_store(embedder.name, embedder.dim) as vectors:
        stats = embed_snapshot(report.repo, functions, embedder, vectors, progress, code_of)
    report.embedding = stats.to_json()


def is_indexed(state: dict | None, embed: bool) -> bool:
    """Whether a snapshot in `state` (`GraphStore.snapshot_state`) already holds what indexing would write: a
    snapshot indexed with --no-embed is indexed again when vectors are wanted."""
    return bool(state and state["complete"] and (not embed or (state["stats"] or {}).get("embedding")))


def index_repository(
    store: GraphStore,
    path: str,
    repo: str | None = None,
    rev: str | None = None,
    force: bool = False,
    progress: Progress = no_progress,
    embed: bool = True,
    model: str | None = None,
    full: bool = False,
) -> IndexReport:
    """Index one commit: graph, then (unless embed=False) vectors; complete only when both are written.
    Incremental against the closest indexed snapshot of the repository unless `full`."""
    started = time.perf_counter()
    commit = open_commit(path, rev)
    report = IndexReport(repo=repo or default_repo_name(commit), snapshot=commit.sha, rev=commit.rev)
    state = store.snapshot_state(report.repo, report.snapshot)
    if is_indexed(state, embed) and not force:
        report.already_indexed = True
        stats = state["stats"] or {}
        for key in ("nodes", "relationships", "skipped", "warnings", "resolutions"):
            getattr(report, key).update(stats.get(key, {}))
        report.files_parsed = stats.get("files_parsed", 0)
        report.other_files = stats.get("other_files", 0)
        report.embedding = stats.get("embedding")
        return report
    embedder = open_embedder(model) if embed else None  # a missing model fails before any work is done
    if embedder is not None:
        # So does a vector store another process holds. It is let go at once and taken again only to embed, so
        # queries wait on indexing no longer than that.
        open_vector_store(embedder.name, embedder.dim).close()
    t = time.perf_counter()
    selection = select_files(commit)
    base = None if full else choose_base(store, commit, report.repo, selection.files)
    outcomes, cached = collect_outcomes(report, commit, selection.files, base, progress=progress)
    report.seconds["parse"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter()
    graph = graph_of(report, selection, outcomes, cached)
    report.seconds["resolve"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter()
    write_graph(store, report, graph, progress, base.snapshot if base else None)
    report.seconds["write"] = round(time.perf_counter() - t, 3)
    if embedder is not None:
        t = time.perf_counter()
        embed_graph(store, report, graph, embedder, progress)
        report.seconds["embed"] = round(time.perf_counter() - t, 3)
    report.seconds["total"] = round(time.perf_counter() - started, 3)
    store.complete_snapshot(report.repo, report.snapshot, report.stats())
    return report
