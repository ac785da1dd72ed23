"""The indexing pipeline as Celery tasks: a chord of file-batch parse tasks (queue `parse`), then resolve +
write (queue `write`), then embed (queue `embed`), each recording its progress on the job (`indexer.graph.jobs`).

The tasks call the same stage functions as the local run (`indexer.pipeline.index`), so distributing the work is
configuration: with SPIDER_BROKER_URL (redis://… or amqp://…) set, workers started with `spider worker` do it;
without it the tasks run eagerly in this process. Payloads are JSON (no pickle on the wire). Tasks are
acknowledged late and idempotent, so a task whose worker dies is redelivered and redone.

This module is the Celery door to the environment. A task is started by a worker, not by a command that could
hand it settings, so each task reads them when it runs (`task_settings`) and passes them down: the graph, the
parse cache, the embedding model, the vector store and the repository cache it opens follow them. The app object
must exist at import (the tasks are declared on it, and `celery -A spider.indexer.distributed.tasks` imports it),
but it reads nothing then: its broker settings are read from the environment when Celery first needs its
configuration (`make_app`), which in a worker is as Celery starts it and in a command as it first sends a task;
that process's environment is the one its door read. The functions a command calls (`index_commit`,
`index_manifest`) take the command's settings; called without, they read them as a task does.
"""

from __future__ import annotations

import atexit
import json
from functools import cache
from pathlib import Path
from typing import Any

from celery import Celery, Task, chord
from celery.result import AsyncResult
from kombu.exceptions import OperationalError
from neo4j.exceptions import ServiceUnavailable as Neo4jUnavailable
from neo4j.exceptions import SessionExpired, TransientError
from spider.core.errors import InvalidInput, ServiceUnavailable, SpiderError, StoreBusy
from spider.core.redact import mask_secrets_of, redact
from spider.core.schema import Label
from spider.core.settings import CelerySettings, Settings
from spider.indexer.graph import jobs, neo4j_local
from spider.indexer.graph.store import GraphStore
from spider.indexer.models.embedding import open_embedder
from spider.indexer.parse.cache import open_parse_cache
from spider.indexer.parse.facts import outcome_from_dict, outcome_to_dict
from spider.indexer.pipeline.base_snapshot import BaseSnapshot, base_at, choose_base
from spider.indexer.pipeline.graph_format import graph_format
from spider.indexer.pipeline.report import IndexReport, VersionsWritten
from spider.indexer.pipeline.stages import (
    batches,
    collect_outcomes,
    cyclic_gc_paused,
    earlier_resolution,
    embed_graph,
    graph_of,
    head_is_embedded,
    parse_batch,
    stored_functions,
    write_graph,
)
from spider.indexer.source.org import RepoSpec, materialise
from spider.indexer.source.walk import Commit, SourceFile, default_repo_name, open_commit, select_files
from spider.indexer.vectors.open_store import open_vector_store

_TRANSIENT = (Neo4jUnavailable, SessionExpired, TransientError, ConnectionError)


def task_settings() -> Settings:
    """The settings of a task, read from the environment as it runs (a task is a door), their secrets masked in
    what the worker logs."""
    settings = Settings.from_env()
    mask_secrets_of(settings)
    return settings


def make_app(celery: CelerySettings | None = None) -> Celery:
    """The Celery app, configured from `celery`; None: from the environment's settings, read when Celery first
    needs the app's configuration (never at import)."""
    app = Celery("spider")
    app.add_defaults(lambda: celery_config(celery if celery is not None else task_settings().celery))
    return app


def celery_config(celery: CelerySettings) -> dict[str, Any]:
    broker, unacked_after, sweep_every = celery.broker_url, celery.visibility_timeout, celery.sweep_interval
    return dict(
        broker_url=broker or "memory://",
        result_backend=celery.result_backend or broker or "cache+memory://",
        task_always_eager=broker is None,
        task_eager_propagates=True,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_acks_late=True,  # a task whose worker dies is redelivered, not lost
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_time_limit=3600,
        task_soft_time_limit=3300,
        worker_max_memory_per_child=2_000_000,  # KiB: a worker that grew past 2 GB is replaced
        # A message a dead worker held is redelivered after this long; longer than any task, so a slow task is
        # never handed to a second worker while it runs. Workers sweep for such messages every `sweep_interval`
        # (and for jobs whose messages were lost: `indexer.distributed.stalled`). A sweep holds a Redis lock
        # for milliseconds; kombu lets the lock of a worker killed mid-sweep block every sweep for 300 s, so it
        # expires after one sweep interval instead.
        broker_transport_options={"visibility_timeout": unacked_after,
                                  "unacked_restore_interval": sweep_every,
                                  "unacked_restore_throttle": 1,
                                  "unacked_mutex_expire": sweep_every},
        task_routes={"spider.parse_batch": {"queue": "parse"}, "spider.write_snapshot": {"queue": "write"},
                     "spider.index_repo": {"queue": "write"}, "spider.embed_snapshot": {"queue": "embed"}},
        task_default_queue="write",
    )


app = make_app()


def worker_store(settings: Settings | None = None) -> GraphStore:
    """One Neo4j driver per worker process (created after the fork) and settings, shared by its tasks, closed at
    exit: the graph `settings` name (a task's; None: read as a task reads them)."""
    return _store_of(settings if settings is not None else task_settings())


@cache
def _store_of(settings: Settings) -> GraphStore:
    store = neo4j_local.open_graph(settings)
    atexit.register(store.close)
    return store


class JobTask(Task):
    """A task of an index job: when it fails for good (retries exhausted, or an error that is not transient),
    the job is marked failed with the error, so `spider jobs` says what went wrong."""

    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:
        job_id = kwargs.get("job_id")
        if job_id:
            jobs.fail_job(worker_store(task_settings()), job_id, f"{self.name}: {type(exc).__name__}: {exc}")


@app.task(name="spider.parse_batch", base=JobTask, autoretry_for=(OSError, *_TRANSIENT), retry_backoff=True,
          max_retries=8)
def parse_batch_task(git_dir: str, sha: str, rev: str, files: list[list], job_id: str | None = None,
                     batch: int = 0) -> list[dict]:
    settings = task_settings()
    commit = Commit(Path(git_dir), sha, rev)
    sources = [SourceFile(*f) for f in files]
    outcomes = parse_batch(commit, sources)
    with open_parse_cache(graph_format(), settings) as cache:
        cache.put_many(zip((f.parsed_as for f in sources), outcomes))
    parsed = [outcome_to_dict(o) for o in outcomes]
    if job_id:
        jobs.batch_done(worker_store(settings), job_id, batch, len(files))
    return parsed


@app.task(name="spider.write_snapshot", base=JobTask, autoretry_for=_TRANSIENT, retry_backoff=True, max_retries=8)
def write_snapshot_task(parsed: list[list[dict]], git_dir: str, repo: str, sha: str, rev: str,
                        base: str | None = None, job_id: str | None = None) -> dict:
    """Resolve the whole snapshot and write its graph, still incomplete (invisible to queries); idempotent:
    a redelivery rewrites the same graph. With a `base` snapshot, only changed files were parsed by the parse
    tasks: the others come from this worker's parse cache (or are parsed here), their nodes from the base."""
    settings = task_settings()
    store = worker_store(settings)
    if job_id:
        jobs.set_stage(store, job_id, "writing")
    commit = Commit(Path(git_dir), sha, rev)
    with cyclic_gc_paused():
        selection = select_files(commit)
        report = IndexReport(repo=repo, snapshot=sha, rev=rev)
        base_snapshot = base_at(commit, base) if base else None
        outcomes, cached = collect_outcomes(report, commit, selection.files, base_snapshot,
                                            {d["path"]: outcome_from_dict(d) for batch in parsed for d in batch},
                                            settings=settings)
        graph, resolution = graph_of(report, selection, outcomes, cached, earlier_resolution(store, repo, base_snapshot))
        write_graph(store, report, graph, base=base, resolution=resolution)
    return report.stats()


@app.task(name="spider.embed_snapshot", base=JobTask, autoretry_for=(*_TRANSIENT, StoreBusy), retry_backoff=5,
          retry_backoff_max=120, max_retries=30)  # on one machine, embed tasks of a repository take turns
def embed_snapshot_task(stats: dict, repo: str, sha: str, embed: bool = True, model: str | None = None,
                        job_id: str | None = None) -> dict:
    """Embed the written snapshot's functions (reusing vectors by content hash), then mark it complete."""
    settings = task_settings()
    store = worker_store(settings)
    if embed:
        if job_id:
            jobs.set_stage(store, job_id, "embedding")
        embedder = open_embedder(model, settings=settings)
        report = IndexReport(repo=repo, snapshot=sha, rev="")
        with open_vector_store(embedder.name, embedder.dim, settings) as vectors, vectors.writing(repo):
            created_only = head_is_embedded(store, repo, VersionsWritten(**stats["versions"]), embedder.name, vectors)
            nodes = stored_functions(store, repo, sha, created_only)
            shared = stats["nodes"].get(Label.FUNCTION.value, 0) - len(nodes) if created_only else 0
            embedded = embed_graph(store, report, nodes, embedder, shared=shared, vectors=vectors)
        stats = {**stats, "embedding": embedded.to_json()}
    store.complete_snapshot(repo, sha, stats)
    if job_id:
        jobs.set_stage(store, job_id, "done")
    return {"repo": repo, "snapshot": sha, **stats}


@app.task(name="spider.index_repo", base=JobTask, autoretry_for=_TRANSIENT, retry_backoff=True, max_retries=8)
def index_repo_task(spec: dict, embed: bool = True, model: str | None = None, job_id: str | None = None) -> list[str]:
    """Fetch one manifest repository into the cache and enqueue an index job per revision; their ids."""
    repo = RepoSpec.from_json(spec)
    settings = task_settings()
    store = worker_store(settings)
    if job_id:
        jobs.set_stage(store, job_id, "fetching")
    git_dir = materialise(repo, settings)
    children = [index_commit(str(git_dir), repo.name, rev, embed, model, settings=settings)[0] for rev in repo.revs]
    if job_id:
        jobs.finish_with_children(store, job_id, children)
    return children


def index_manifest(specs: list[RepoSpec], embed: bool = True, model: str | None = None,
                   settings: Settings | None = None) -> list[dict]:
    """One job per manifest repository, enqueued (or, without a broker, run here one after another). Returns
    per repository its job and status (queued | done | already running | failed, with the error): a repository
    that cannot be fetched or indexed fails its own job only. `settings`: the command's (None: read as a task
    reads them)."""
    settings = settings if settings is not None else task_settings()
    ensure_broker()
    if embed:
        open_embedder(model, settings=settings)
    store = worker_store(settings)
    outcomes = []
    for spec in specs:
        job_id = jobs.new_job_id()
        source = redact(spec.url) if spec.url else spec.path or ""  # analysts read every job: no token
        kept = json.dumps(spec.to_json()) if source == (spec.url or spec.path or "") else None
        running = jobs.create_job(store, job_id, spec.name, ",".join(spec.revs), "", source, 0,
                                  jobs.JobPlan(embed=embed, model=model, fetch=kept))
        outcome = {"repo": spec.name, "job": running or job_id, "status": "already running", "error": None}
        if not running:
            try:
                index_repo_task.apply_async(args=(spec.to_json(), embed, model), kwargs={"job_id": job_id})
                outcome["status"] = "done" if app.conf.task_always_eager else "queued"
            except Exception as exc:  # eager mode: the task ran here and failed; its job says so, and we go on
                error = str(exc) if isinstance(exc, SpiderError) else f"{type(exc).__name__}: {exc}"
                jobs.fail_job(store, job_id, f"spider.index_repo: {error}")
                outcome.update(status="failed", error=error)
        outcomes.append(outcome)
    return outcomes


def index_commit(path: str, repo: str | None = None, rev: str | None = None, embed: bool = True,
                 model: str | None = None, full: bool = False,
                 settings: Settings | None = None) -> tuple[str, AsyncResult | None]:
    """Record a job and enqueue (or, without a broker, run) its tasks: a chord of parse batches (of the files
    changed since the closest indexed snapshot, unless `full`) whose body writes the graph, then embeds.
    Returns the job id and the Celery result of the last task; when a job is already indexing this snapshot,
    that job's id and None (nothing is enqueued). The entry points
    (`spider index --async`, `index_manifest`) check the broker and the embedding model once, before calling
    this; a worker calls it once per revision of a manifest repository. The graph is the one `settings` name (the
    caller's; None: read as a task reads them); the tasks read their own when they run."""
    store = worker_store(settings)
    commit = open_commit(path, rev)
    repo = repo or default_repo_name(commit)
    files = select_files(commit).files
    base = None if full else choose_base(store, commit, repo, files)
    plan = jobs.JobPlan(embed=embed, model=model, base=base.snapshot if base else None)
    to_parse = files_to_parse(files, base)
    job_id = jobs.new_job_id()
    running = jobs.create_job(store, job_id, repo, commit.rev, commit.sha, str(commit.git_dir), len(to_parse), plan)
    if running:
        return running, None
    return job_id, send_job_tasks(store, job_id, commit, repo, to_parse, plan)


def files_to_parse(files: list[SourceFile], base: BaseSnapshot | None) -> list[SourceFile]:
    unchanged = {f.path for f in base.unchanged(files)} if base else set()
    return [f for f in files if f.path not in unchanged]


def send_job_tasks(store: GraphStore, job_id: str, commit: Commit, repo: str, to_parse: list[SourceFile],
                   plan: jobs.JobPlan) -> AsyncResult:
    header = [
        parse_batch_task.s(str(commit.git_dir), commit.sha, commit.rev,
                           [[f.path, f.blob, f.size, f.language] for f in batch],
                           job_id=job_id, batch=index)
        for index, batch in enumerate(batches(to_parse))
    ]
    body = write_snapshot_task.s(str(commit.git_dir), repo, commit.sha, commit.rev, plan.base,
                                 job_id=job_id) | embed_snapshot_task.s(repo, commit.sha, plan.embed, plan.model,
                                                                        job_id=job_id)
    try:
        return chord(header)(body) if header else body.apply_async(args=([],))
    except (OperationalError, RuntimeError, ConnectionError) as exc:  # the broker went away since the check
        jobs.fail_job(store, job_id, f"could not enqueue: {exc}")
        raise ServiceUnavailable(f"could not enqueue job {job_id} on {app.conf.broker_url}: {exc}") from None


def send_job_tasks_again(store: GraphStore, job: dict) -> None:
    """Send a claimed job's tasks again (`jobs.claim_stalled`): all its parse batches, as the first time (batches
    already done are redone, and counted once), then the write and the embedding; a manifest repository's fetch.
    Every task is idempotent."""
    if not job["commit"]:
        if job["fetch"] is None:
            raise InvalidInput("its manifest entry's URL holds a credential, which no job keeps: "
                               "run `spider org index` again")
        index_repo_task.apply_async(args=(json.loads(job["fetch"]), job["embed"], job["model"]),
                                    kwargs={"job_id": job["id"]})
        return
    commit = Commit(Path(job["path"]), job["commit"], job["rev"])
    files = select_files(commit).files
    base = base_at(commit, job["base"]) if job["base"] else None
    plan = jobs.JobPlan(embed=job["embed"], model=job["model"], base=job["base"])
    send_job_tasks(store, job["id"], commit, job["repo"], files_to_parse(files, base), plan)


def ensure_broker() -> None:
    """A one-line error now, rather than a job recorded and never run, when the broker cannot be reached."""
    if app.conf.task_always_eager:
        return
    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, interval_start=0, timeout=5)
    except (OperationalError, OSError) as exc:
        raise ServiceUnavailable(f"cannot reach the Celery broker {app.conf.broker_url}: {exc}") from None
