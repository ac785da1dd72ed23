"""`spider index`: index one commit of a repository, here or through the workers, and print its summary."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable

import click
from spider.cli.error_handler import command_settings, fail_cleanly
from spider.core.errors import ConfigurationError
from spider.core.settings import BROKER_ENV, Settings
from spider.core.terminal import printable
from spider.indexer.graph import neo4j_local
from spider.indexer.models import embedding
from spider.indexer.pipeline.index import index_repository, is_indexed
from spider.indexer.pipeline.report import IndexReport
from spider.indexer.source.walk import default_repo_name, open_commit


def progress_bar(stage: str, total: int) -> Callable[[int], None]:
    """A click progress bar on stderr per pipeline stage (a plain label when stderr is not a terminal)."""
    if total == 0:
        return lambda n: None
    bar = click.progressbar(length=total, label=f"{stage:<22}", file=sys.stderr, show_pos=True)
    bar.__enter__()
    done = [0]

    def advance(n: int) -> None:
        bar.update(n)
        done[0] += n
        if done[0] >= total:
            bar.__exit__(None, None, None)

    return advance


def _counts(counter: dict) -> str:
    return ", ".join(f"{key} {value:,}" for key, value in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def print_summary(report: IndexReport) -> None:
    state = "already indexed (nothing changed)" if report.already_indexed else "indexed"
    total = f" in {report.seconds['total']:.1f} s" if "total" in report.seconds else ""
    click.echo(printable(f"{state} {report.repo} @ {report.snapshot} ({report.rev}){total}"))
    skipped = sum(report.skipped.values())
    line = f"  files: {report.files_parsed:,} parsed, {skipped:,} skipped"
    if skipped:
        line += f" ({_counts(report.skipped)})"
    click.echo(line + f"; {report.other_files:,} files in languages not parsed")
    if report.incremental:
        i = report.incremental
        click.echo(f"  incremental from {i.base[:12]}: {_plural(i.files_changed, 'file')} changed; "
                   f"{i.files_reparsed:,} read by the parser")
    if (v := report.versions) and v.head:
        click.echo(f"  written over {v.head[:12]} as snapshot #{v.seq}: {v.nodes_created:,} node and "
                   f"{v.relationships_created:,} relationship versions created, {v.nodes_closed:,} and "
                   f"{v.relationships_closed:,} ended")
    if report.warnings:
        click.echo(f"  parsed with warnings: {_counts(report.warnings)}")
    click.echo(f"  nodes: {_counts(report.nodes) or 'none'}")
    click.echo(f"  relationships: {_counts(report.relationships) or 'none'}")
    if report.resolutions:
        click.echo(f"  resolution of IMPORTS/INVOKES/INHERITS: {_counts(report.resolutions)}")
    if report.embedding:
        e = report.embedding
        later = f" (and {e.later_windows:,} later windows of long functions)" if e.later_windows else ""
        click.echo(f"  embeddings ({e.model}, {e.dim}-d): {e.embedded:,} functions embedded{later}, "
                   f"{e.reused:,} reused from earlier snapshots")
    else:
        click.echo("  embeddings: none (indexed with --no-embed)")
    stages = {k: v for k, v in report.seconds.items() if k != "total"}
    if stages:
        click.echo("  seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()))


@click.command()
@click.argument("path", type=click.Path(path_type=Path))  # open_commit reports a file path in one line
@click.option("--repo", help="Repository name in the graph (default: owner/name of the origin remote, else the directory name).")
@click.option("--rev", help="Commit, branch or tag to index (default HEAD). Works on bare repositories too.")
@click.option("--force", is_flag=True, help="Re-index even if this commit is already indexed.")
@click.option("--full", is_flag=True,
              help="Parse and resolve every file, instead of starting from the closest indexed snapshot "
                   "of the repository (the result is the same; --full is the way to check that).")
@click.option("--model", help="Embedding model (default: $SPIDER_EMBED_MODEL, else all-MiniLM-L6-v2; see `spider models list`).")
@click.option("--no-embed", is_flag=True, help="Build the graph only: no vectors (dense retrieval will not work on it).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the summary as JSON, with the skipped files and the files parsed with warnings.")
@click.option("--verbose", is_flag=True,
              help="After the summary, list the skipped files and the files parsed with warnings.")
@click.option("--async", "enqueue", is_flag=True,
              help="Enqueue the run for `spider worker`s (needs SPIDER_BROKER_URL) and print its job id; "
                   "follow it with `spider jobs ID`. PATH must be readable by the workers.")
@fail_cleanly
def index(path: Path, repo: str | None, rev: str | None, force: bool, full: bool, model: str | None,
          no_embed: bool, as_json: bool, verbose: bool, enqueue: bool) -> None:
    """Index the commit REV of the git repository at PATH into Neo4j.

    Files are read from the commit itself (uncommitted edits are not indexed); symlinks, vendored
    directories, minified bundles, binary and oversized files are skipped and counted. Indexing an
    already indexed commit changes nothing. Queries only see a snapshot once it is complete.

    When another commit of the repository is indexed, only the files that differ from it are parsed, only
    the references a change can reach are resolved again, only what differs from the repository's last
    written snapshot is written to Neo4j, and only new functions are embedded; the snapshot is the same as a
    full rebuild's.
    """
    settings = command_settings()
    if enqueue:
        enqueue_index(path, repo, rev, force, full, model, no_embed, as_json, settings)
        return
    with neo4j_local.open_graph(settings) as store:
        report = index_repository(store, str(path), repo=repo, rev=rev, force=force, embed=not no_embed,
                                  model=model, full=full,
                                  progress=(lambda s, t: (lambda n: None)) if as_json else progress_bar,
                                  settings=settings)
    for note in report.notes:
        click.echo(printable(f"spider: warning: {note}"), err=True)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        print_summary(report)
        if verbose:
            print_file_lists(report)


def print_file_lists(report: IndexReport) -> None:
    """`index --verbose`: which files were skipped and why, and which were parsed with warnings."""
    if report.skipped_files is None:
        click.echo("  (already indexed: --force lists the skipped files again)")
        return
    for heading, files in (("skipped files", [(f["path"], f["reason"]) for f in report.skipped_files]),
                           ("files parsed with warnings",
                            [(f["path"], ", ".join(f["warnings"])) for f in report.warned_files or []])):
        if files:
            click.echo(f"  {heading}:")
            for path, why in files:
                click.echo(f"    {printable(path)}: {why}")


def enqueue_index(path: Path, repo: str | None, rev: str | None, force: bool, full: bool, model: str | None,
                  no_embed: bool, as_json: bool, settings: Settings) -> None:
    from spider.indexer.distributed import tasks  # Celery is only imported by the commands that use it

    if not settings.celery.broker_url:
        raise ConfigurationError(f"--async needs a broker for the workers: set {BROKER_ENV} (e.g. redis://localhost:6379/0)")
    tasks.ensure_broker()
    # A missing model fails here, in one line, not later in a worker.
    wanted = None if no_embed else embedding.open_embedder(model, settings=settings).name
    commit = open_commit(str(path), rev)
    with neo4j_local.open_graph(settings) as store:
        name = repo or default_repo_name(commit)
        state = store.snapshot_state(name, commit.sha)
    if is_indexed(state, wanted) and not force:
        message = {"repo": name, "snapshot": commit.sha, "already_indexed": True}
        click.echo(json.dumps(message) if as_json
                   else printable(f"{name} @ {commit.sha[:12]} is already indexed (--force rebuilds it)"))
        return
    job_id, result = tasks.index_commit(str(path), name, commit.sha, embed=not no_embed, model=model, full=full,
                                        settings=settings)
    queued = result is not None
    click.echo(json.dumps({"job": job_id, "repo": name, "snapshot": commit.sha, "already_queued": not queued})
               if as_json else
               printable(f"{'enqueued' if queued else 'already being indexed by'} job {job_id}: {name} @ "
                         f"{commit.sha[:12]} (follow it with `spider jobs {job_id}`)"))
