"""The indexing pipeline as Celery tasks: a chord of file-batch parse tasks, then resolve + write.

The tasks call the same stage functions as the local run (`indexer.pipeline`), so distributing the work is
configuration: with SPIDER_BROKER_URL (redis://…) set, workers started with `celery -A indexer.tasks worker`
do it; without it the tasks run eagerly in this process. Payloads are JSON (no pickle on the wire).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from celery import Celery, chord
from neo4j.exceptions import ServiceUnavailable, SessionExpired, TransientError

from indexer import neo4j_local
from indexer.graph_store import GraphStore
from indexer.parse import outcome_from_dict, outcome_to_dict
from indexer.embedding import open_embedder
from indexer.pipeline import IndexReport, batches, embed_graph, graph_of, parse_batch, write_graph
from indexer.walk import Commit, FileSelection, SourceFile, open_commit, select_files

_TRANSIENT = (ServiceUnavailable, SessionExpired, TransientError, ConnectionError)


def make_app() -> Celery:
    broker = os.environ.get("SPIDER_BROKER_URL")
    app = Celery("spider")
    app.conf.update(
        broker_url=broker or "memory://",
        result_backend=os.environ.get("SPIDER_RESULT_BACKEND") or broker or "cache+memory://",
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
        task_routes={"spider.parse_batch": {"queue": "parse"}, "spider.write_snapshot": {"queue": "write"}},
    )
    return app


app = make_app()


@app.task(name="spider.parse_batch", autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def parse_batch_task(git_dir: str, sha: str, rev: str, files: list[list]) -> list[dict]:
    commit = Commit(Path(git_dir), sha, rev)
    return [outcome_to_dict(o) for o in parse_batch(commit, [SourceFile(*f) for f in files])]


@app.task(name="spider.write_snapshot", autoretry_for=_TRANSIENT, retry_backoff=True, max_retries=8)
def write_snapshot_task(
    parsed: list[list[dict]], repo: str, sha: str, rev: str, selection: dict, embed: bool = True
) -> dict:
    """Resolve the whole snapshot and write it; idempotent (a redelivery rewrites the same graph)."""
    report = IndexReport(repo=repo, snapshot=sha, rev=rev)
    chosen = FileSelection(skipped=Counter(selection["skipped"]), other=selection["other"])
    graph = graph_of(report, chosen, [outcome_from_dict(d) for batch in parsed for d in batch])
    embedder = open_embedder() if embed else None
    with GraphStore(neo4j_local.connection_settings()) as store:
        write_graph(store, report, graph)
        if embedder is not None:
            embed_graph(report, graph, embedder)
        store.complete_snapshot(repo, sha, report.stats())
    return {"repo": repo, "snapshot": sha, "rev": rev, **report.stats()}


def index_commit(path: str, repo: str, rev: str | None = None, embed: bool = True):
    """Enqueue (or, without a broker, run) the chord for one commit; returns the Celery result."""
    commit = open_commit(path, rev)
    selection = select_files(commit)
    header = [
        parse_batch_task.s(str(commit.git_dir), commit.sha, commit.rev, [[f.path, f.blob, f.size] for f in batch])
        for batch in batches(selection.files)
    ]
    summary = {"skipped": dict(selection.skipped), "other": selection.other}
    body = write_snapshot_task.s(repo, commit.sha, commit.rev, summary, embed)
    if not header:
        return body.apply_async(args=([],))
    return chord(header)(body)
