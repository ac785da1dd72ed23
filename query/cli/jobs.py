"""`spider jobs`: index jobs and their progress; cancel one."""

from __future__ import annotations

import json

import click
from spider.cli.error_handler import command_settings, fail_cleanly
from spider.core.errors import InvalidInput, NotFound
from spider.core.terminal import render_table
from spider.indexer.graph import jobs, neo4j_local


@click.command("jobs")
@click.argument("job_id", required=False)
@click.option("--cancel", is_flag=True, help="Mark JOB_ID failed (cancelled), so its snapshot can be enqueued again.")
@click.option("--json", "as_json", is_flag=True)
@fail_cleanly
def jobs_command(job_id: str | None, cancel: bool, as_json: bool) -> None:
    """Index jobs, newest first (or the job JOB_ID, a prefix is enough): state, stage, files parsed of total,
    errors."""
    if cancel and not job_id:
        raise InvalidInput("--cancel needs the JOB_ID to cancel")
    with neo4j_local.open_graph(command_settings()) as store:
        rows = jobs.list_jobs(store, job_id)
        if job_id and not rows:
            raise NotFound(f"no job {job_id}")
        if cancel:
            jobs.cancel_job(store, rows[0]["id"])
            rows = jobs.list_jobs(store, rows[0]["id"])
    if as_json:
        click.echo(json.dumps(rows if not job_id else rows[0], indent=2))
        return
    if not rows:
        click.echo("no jobs")
        return
    table = [[r["id"], r["repo"] or "", (r["snapshot"] or "")[:12], r["state"] or "", r["stage"] or "",
              f"{len(r['children'])} job(s)" if r["children"] else f"{r['files_done']}/{r['files_total']}",
              (r["created_at"] or "")[:19], "; ".join(r["errors"] or [])]
             for r in rows]
    click.echo(render_table(["job", "repo", "snapshot", "state", "stage", "files / jobs", "created", "errors"], table))
