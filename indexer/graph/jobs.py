"""Index jobs: what `spider index --async` enqueued and how far the workers got, kept in Neo4j beside the
snapshots (every worker and every CLI already reach it), so `spider jobs` sees every job from any machine.

Stages: queued -> parsing (files done / total) -> writing (resolve and write the graph) -> embedding -> done
(a manifest repository's job: queued -> fetching -> done, listing the index jobs it enqueued as `children`);
any task that fails for good marks its job failed with the error. One job at a time per snapshot: enqueuing a
snapshot that a job is indexing returns that job.
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass

from neo4j.exceptions import ConstraintError
from spider.core.redact import redact
from spider.indexer.graph.store import GraphStore

STAGES = ("queued", "parsing", "writing", "embedding", "done")


def new_job_id() -> str:
    return uuid.uuid4().hex[:12]


@dataclass(frozen=True)
class JobPlan:
    """What it takes to send a job's tasks again, beside an index job's commit and path."""

    embed: bool = True
    model: str | None = None
    base: str | None = None  # the snapshot the commit is indexed against
    fetch: str | None = None  # a manifest repository's entry (JSON); none where its URL holds a credential


def create_job(store: GraphStore, job_id: str, repo: str, rev: str, snapshot: str, path: str,
               files_total: int, plan: JobPlan | None = None) -> str | None:
    """Record the job; None when it is recorded, else the id of the job already indexing this snapshot (the
    database's uniqueness constraint decides, so two concurrent enqueues cannot both win). A job's plan lets a
    worker send its tasks again (`claim_stalled`)."""
    store.ensure_schema()
    try:
        store.run_named("job_create", id=job_id, repo=repo, rev=rev, snapshot=snapshot, path=path,
                        files_total=files_total,
                        **(dataclasses.asdict(plan) if plan else dict.fromkeys(f.name for f in dataclasses.fields(JobPlan))))
        return None
    except ConstraintError:
        rows = store.run_named("job_active", repo=repo, snapshot=snapshot)
        return rows[0]["id"] if rows else create_job(store, job_id, repo, rev, snapshot, path, files_total, plan)


def batch_done(store: GraphStore, job_id: str, batch: int, files: int) -> None:
    store.run_named("job_batch_done", id=job_id, batch=batch, files=files)


def set_stage(store: GraphStore, job_id: str, stage: str) -> None:
    store.run_named("job_stage", id=job_id, stage=stage, state="done" if stage == "done" else "running")


def finish_with_children(store: GraphStore, job_id: str, children: list[str]) -> None:
    store.run_named("job_children", id=job_id, children=children)


def cancel_job(store: GraphStore, job_id: str) -> None:
    """Mark a job failed as cancelled: its snapshot can be enqueued again. Tasks already queued still run."""
    fail_job(store, job_id, "cancelled by the user (`spider jobs --cancel`)")


def fail_job(store: GraphStore, job_id: str, error: str) -> None:
    """Kept in the graph every analyst reads: the error's secrets (a fetched URL's token) are masked first."""
    store.run_named("job_fail", id=job_id, error=redact(error))


def claim_stalled(store: GraphStore, idle_seconds: int) -> list[dict]:
    """Queued or running jobs idle for idle_seconds, each claimed by this caller alone (claiming resets its idle
    time): their id, repo, rev, commit (empty for a manifest repository's fetch job), path and plan fields."""
    return store.run_named("job_claim_stalled", seconds=idle_seconds)


def list_jobs(store: GraphStore, job_id: str | None = None, limit: int = 50) -> list[dict]:
    return store.run_named("jobs", id=job_id, limit=limit)
