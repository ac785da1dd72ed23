"""`spider org`: index every repository an organisation's manifest lists."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from spider.cli.error_handler import command_settings, fail_cleanly
from spider.core.terminal import printable


@click.group()
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
    outcomes = tasks.index_manifest(specs, embed=not no_embed, model=model, settings=command_settings())
    if as_json:
        click.echo(json.dumps(outcomes, indent=2))
    else:
        for o in outcomes:
            line = f"{o['repo']}: job {o['job']} {o['status']}" + (f": {o['error']}" if o["error"] else "")
            click.echo(printable(line))
    if any(o["status"] == "failed" for o in outcomes):
        sys.exit(1)
