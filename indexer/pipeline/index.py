"""Index one commit: select files -> parse (parallel) -> resolve the graph -> write -> embed -> mark complete.

The stages are the plain functions of `pipeline.stages`, which the Celery tasks (`indexer.distributed.tasks`) share;
this module is the local, in-process run that wires them.

Incremental indexing: when a snapshot of the repository is already indexed (`indexer.pipeline.base_snapshot`), files
unchanged since it are not parsed (their facts come from `indexer.parse.cache`, their nodes' digests from the
base's), only the files whose reads the commit changed are resolved again (`indexer.resolve.incremental`), only
the snapshot's difference from the repository's head is written (`indexer.graph.versions`), and only functions the
head does not hold are embedded. The graph is the full rebuild's.
"""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from dataclasses import replace

from spider.core.records import EmbedStats
from spider.core.settings import Settings, settings_or_env
from spider.indexer.graph.snapshot import Snapshot
from spider.indexer.graph.store import GraphStore
from spider.indexer.models.embedding import open_embedder, open_embedder_in_background, resolve_spec
from spider.indexer.pipeline.base_snapshot import choose_base
from spider.indexer.pipeline.graph_format import graph_format
from spider.indexer.pipeline.report import IndexReport
from spider.indexer.pipeline.stages import (
    Progress,
    collect_outcomes,
    cyclic_gc_paused,
    earlier_resolution,
    embed_graph,
    embedded_with,
    functions_to_embed,
    graph_of,
    no_progress,
    stored_functions,
    write_graph,
)
from spider.indexer.source.walk import default_repo_name, open_commit, select_files
from spider.indexer.vectors.embed_stage import recorded_here
from spider.indexer.vectors.open_store import open_vector_store
from spider.indexer.vectors.store import VectorStore, collection_name


def is_indexed(state: Snapshot | None, model: str | None) -> bool:
    """Whether a snapshot in `state` (`GraphStore.snapshot_state`) already holds what indexing would write, with
    vectors of the embedding model `model` (None: no vectors wanted): a snapshot indexed with --no-embed, or
    embedded with another model or fewer windows of code (`embedded_with`), is embedded again; one written
    before versioning (no `seq`) or by a spider that reads code otherwise (another `graph_format()`: a language
    added, a resolver fixed) is indexed again."""
    return bool(state and state.complete and state.versioned and state.graph_format == graph_format()
                and (model is None or embedded_with(state.embedding, model)))


def recall_indexed(
    store: GraphStore, report: IndexReport, model: str | None, settings: Settings, progress: Progress = no_progress,
    vectors: VectorStore | None = None,
) -> IndexReport | None:
    """The report of `report`'s snapshot from what it stored, if its graph is what indexing would write
    (`is_indexed`), with vectors of the embedding model `model` (None: none wanted). Its vectors are checked in
    this vector store (`vectors`, or the one `settings` name, opened here), not trusted from the graph: what the
    store lacks (the snapshot was embedded into another store, or with another model, or not at all) is embedded,
    and reported so, and the model and the store are recorded on the snapshot."""
    state = store.snapshot_state(report.repo, report.snapshot)
    if state is None or not is_indexed(state, None):
        return None
    started = time.perf_counter()
    stats = state.stats or {}
    recalled = IndexReport(report.repo, report.snapshot, report.rev, already_indexed=True,
                           files_parsed=stats.get("files_parsed", 0), other_files=stats.get("other_files", 0),
                           embedding=state.embedding)
    for key in ("nodes", "relationships", "skipped", "warnings", "resolutions"):
        getattr(recalled, key).update(stats.get(key, {}))
    if model is None:
        return recalled
    embedding = state.embedding if is_indexed(state, model) else None
    embedder = None
    if embedding is None:  # not embedded, or with another model: all the wanted model's store lacks is embedded
        embedder = open_embedder(model, settings=settings)
        name, dim = embedder.name, embedder.dim
    else:
        name, dim = embedding.model, embedding.dim
    held = vectors if vectors is not None and vectors.collection == collection_name(name, dim) else None
    with ExitStack() as opened:
        here = held if held is not None else opened.enter_context(open_vector_store(name, dim, settings))
        if embedding is not None and recorded_here(embedding, here) and \
                here.holds_all(report.repo, snapshot_hashes(store, report), thorough=False):
            return recalled
        if held is None:  # else the caller holds the repository's writer lease
            opened.enter_context(here.writing(report.repo))
        # Every window of every function is looked up here (a store an older spider filled holds first windows).
        functions = stored_functions(store, report.repo, report.snapshot)
        embedded = embed_graph(store, recalled, functions, embedder or open_embedder(name, settings=settings), progress,
                               vectors=here)
        kept = embedding.stores or () if embedding is not None else ()
        stores = (*(s for s in kept if s != here.store_id), here.store_id)
        if embedding is not None and not embedded.embedded and not embedded.later_windows:
            recalled.embedding = replace(embedding, stores=stores)  # all there: as recorded, and here
        else:
            recalled.embedding = replace(embedded, stores=stores)
            recalled.already_indexed = False
            recalled.seconds["total"] = round(time.perf_counter() - started, 3)
        store.run_named("snapshot_embedding", repo=report.repo, snapshot=report.snapshot,
                        stats=json.dumps({**stats, "embedding": recalled.embedding.to_json()}))
    return recalled


def snapshot_hashes(store: GraphStore, report: IndexReport) -> list[str]:
    """The content hashes of the report's snapshot's functions: what its points are keyed by."""
    return [row["content_hash"] for row in store.run_named("snapshot_function_members", repo=report.repo,
                                                           snapshot=report.snapshot)]


def keep_embedding(store: GraphStore, report: IndexReport, embedding: EmbedStats, settings: Settings) -> None:
    """A --force --no-embed run over a snapshot embedded before: its functions' vectors stay in the store (a point
    is keyed by repository and code), so the snapshot keeps its embedding if the store holds every one; else the
    report says that it is now keyword-only, rather than leave dense retrieval gone without a word."""
    hashes = snapshot_hashes(store, report)
    with open_vector_store(embedding.model, embedding.dim, settings) as vectors:
        if recorded_here(embedding, vectors) and vectors.holds_all(report.repo, hashes, thorough=True):
            report.embedding = replace(embedding, functions=len(hashes), embedded=0, reused=len(hashes), seconds=0.0,
                                       index_seconds=0.0, later_windows=0)
            return
    report.notes.append(f"{report.repo} @ {report.snapshot[:12]} had vectors of {embedding.model}, and {vectors.where} "
                        "lacks some of them now: --no-embed left it keyword-only (index it without --no-embed to "
                        "embed them)")


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
    settings: Settings | None = None,
) -> IndexReport:
    """Index one commit: graph, then (unless embed=False) vectors; complete only when both are written.
    Incremental against the closest indexed snapshot of the repository unless `full`. The embedding model, the
    vector store and the parse cache are those `settings` name (the door's: a CLI command's, the public API's;
    None, for a caller that has none, a test or a bench script: the environment's)."""
    settings = settings_or_env(settings)
    started = time.perf_counter()
    commit = open_commit(path, rev)
    report = IndexReport(repo=repo or default_repo_name(commit), snapshot=commit.sha, rev=commit.rev)
    wanted = resolve_spec(model, settings).name if embed else None
    if not force and (recalled := recall_indexed(store, report, wanted, settings, progress)):
        return recalled
    state = store.snapshot_state(report.repo, report.snapshot) if force and not embed else None
    embedded_before = state.embedding if state is not None else None
    with cyclic_gc_paused():
        # A missing model fails before any work is done; the model loads meanwhile.
        embedder = open_embedder_in_background(model, settings) if embed else None
        t = time.perf_counter()
        selection = select_files(commit)
        base = None if full else choose_base(store, commit, report.repo, selection.files)
        vectors = open_vector_store(embedder.name, embedder.dim, settings) if embedder else None
        with ExitStack() as held:
            if vectors is not None:
                # So does another run writing this repository's vectors: the repository's writer lease is held
                # from here until the snapshot is complete, so a run that loses it fails having written nothing.
                # Readers, and runs of other repositories, never wait for it.
                held.enter_context(vectors)
                held.enter_context(vectors.writing(report.repo))
                vectors.check(report.repo)  # and so does a store that cannot be opened
            outcomes, cached = collect_outcomes(report, commit, selection.files, base, progress=progress,
                                                settings=settings)
            report.seconds["parse"] = round(time.perf_counter() - t, 3)
            t = time.perf_counter()
            graph, resolution = graph_of(report, selection, outcomes, cached, earlier_resolution(store, report.repo, base))
            report.seconds["resolve"] = round(time.perf_counter() - t, 3)
            if not force and (recalled := recall_indexed(store, report, wanted, settings, progress, vectors)):
                return recalled  # indexed meanwhile by the run that held the lease
            t = time.perf_counter()
            created = write_graph(store, report, graph, progress, base.snapshot if base else None, resolution)
            report.seconds["write"] = round(time.perf_counter() - t, 3)
            if embedder is not None:
                assert vectors is not None  # opened with the embedder, above
                t = time.perf_counter()
                functions, shared = functions_to_embed(store, report, graph, created, embedder, vectors)
                embed_graph(store, report, functions, embedder, progress, shared, vectors=vectors)
                report.seconds["embed"] = round(time.perf_counter() - t, 3)
            if embedded_before is not None:
                keep_embedding(store, report, embedded_before, settings)
            report.seconds["total"] = round(time.perf_counter() - started, 3)
            store.complete_snapshot(report.repo, report.snapshot, report.stats())
    return report
