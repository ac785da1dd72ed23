"""`spider snapshots`: list, compare, delete and prune indexed snapshots."""

from __future__ import annotations

import json
import re

import click
from spider.cli.error_handler import command_settings, fail_cleanly
from spider.core.errors import InvalidInput
from spider.core.terminal import printable, render_table
from spider.indexer.graph import neo4j_local
from spider.indexer.graph.snapshot import Snapshot
from spider.indexer.graph.snapshot_diff import diff_snapshots
from spider.indexer.pipeline.delete import delete_snapshot, find_snapshot, snapshots_to_prune


@click.group()
def snapshots() -> None:
    """List, compare, delete or prune indexed snapshots (one per repository and commit)."""


@snapshots.command("list")
@click.option("--repo", help="Only this repository.")
@click.option("--json", "as_json", is_flag=True)
@fail_cleanly
def snapshots_list(repo: str | None, as_json: bool) -> None:
    """Every snapshot with its state and size."""
    with neo4j_local.open_graph(command_settings()) as store:
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
        raise InvalidInput(f"name the snapshot by at least 4 hex digits of its commit sha, not {snapshot!r} "
                          "(see `spider snapshots list`)")
    settings = command_settings()
    with neo4j_local.open_graph(settings) as store:
        sha = find_snapshot(store, repo, snapshot)
        deleted, vectors = delete_snapshot(store, repo, sha, settings)
    click.echo(printable(f"deleted {repo} @ {sha} ({deleted:,} nodes, {vectors:,} vectors no snapshot uses any more)"))


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
    with neo4j_local.open_graph(command_settings()) as store:
        old_sha, new_sha, changes = diff_snapshots(store, repo, old, new)
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
    settings = command_settings()
    with neo4j_local.open_graph(settings) as store:
        doomed = snapshots_to_prune(store, keep, repo)
        for name, sha in doomed:
            if dry_run:
                click.echo(printable(f"would delete {name} @ {sha}"))
                continue
            deleted, vectors = delete_snapshot(store, name, sha, settings)
            click.echo(printable(f"deleted {name} @ {sha} ({deleted:,} nodes, {vectors:,} vectors no snapshot uses "
                                 "any more)"))
    if not doomed:
        click.echo(f"nothing to prune: no repository has more than {keep} complete snapshot(s)")

