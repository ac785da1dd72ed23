"""`spider neo4j`: start, stop and inspect the local Neo4j server."""

from __future__ import annotations

import json

import click
from spider.cli.error_handler import command_settings, fail_cleanly
from spider.indexer.graph import neo4j_local


@click.group()
def neo4j() -> None:
    """Manage the local Neo4j server (not used when NEO4J_URI is set)."""


@neo4j.command("start")
@fail_cleanly
def neo4j_start() -> None:
    """Build (first time) and start the local Neo4j; prints its Bolt URI."""
    settings = command_settings()
    running = neo4j_local.ensure_running(settings)
    click.echo(f"Neo4j running at {running.uri} (user {running.user}; password in "
               f"{settings.home_dir() / 'neo4j' / 'password'})")
    for line in _browser_lines(neo4j_local.status(settings)):
        click.echo(line)


@neo4j.command("stop")
@fail_cleanly
def neo4j_stop() -> None:
    """Stop the local Neo4j (data is kept)."""
    click.echo("stopped" if neo4j_local.stop(settings=command_settings()) else "not running")


@neo4j.command("status")
@click.option("--json", "as_json", is_flag=True)
@fail_cleanly
def neo4j_status(as_json: bool) -> None:
    """Whether the local Neo4j runs, where, which version, and how analysts open it in Neo4j Browser."""
    status = neo4j_local.status(command_settings())
    if as_json:
        click.echo(json.dumps(status, indent=2, default=str))
        return
    for key, value in status.items():
        click.echo(f"{key:>20}: {value}")
    for line in _browser_lines(status):
        click.echo(line)


def _browser_lines(status: dict) -> list[str]:
    """How to open Neo4j Browser and log in as the read-only user; never the password itself."""
    if not status["running"]:
        return []
    if not status["browser"]:
        return [("Neo4j Browser is not served by this server (started by an older spider): "
                 "`spider neo4j stop` then `spider neo4j start`")]
    return [
        f"Neo4j Browser: {status['browser']}",
        (f"  log in with Connect URL bolt://127.0.0.1:{status['port']}, user {status['reader']} (read-only), "
         f"password: cat {status['reader_password_file']}"),
        "  analyst queries to run there: docs/browser.md",
    ]
