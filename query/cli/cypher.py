"""`spider cypher`: run a named analyst query or a .cypher file, read-only, and print its rows."""

from __future__ import annotations

import json
import os
import signal
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import click
from spider import cypher
from spider.cli.error_handler import command_settings, fail_cleanly
from spider.core.errors import InvalidInput
from spider.core.terminal import render_table
from spider.indexer.graph import neo4j_local
from spider.indexer.graph.cypher_gate import run_scoped_query


def parse_param(raw: str) -> tuple[str, Any]:
    """`k=v`: v is read as JSON when it parses (4, true, ["INVOKES"]), else kept as a string."""
    key, sep, value = raw.partition("=")
    if not sep or not key:
        raise InvalidInput(f"--param takes key=value, got {raw!r}")
    try:
        return key, json.loads(value)
    except (ValueError, RecursionError):  # not JSON, an integer of thousands of digits, nesting past the stack
        return key, value


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, default=str)
    return str(value).replace("\n", "⏎")


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


@click.command(
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
            raise InvalidInput(f"{query} is not UTF-8 text") from None
    elif query in cypher.ANALYST:
        text = cypher.load(query)
    else:
        raise InvalidInput(f"no query named {query!r} and no such .cypher file (named: {', '.join(cypher.ANALYST)})")
    values = dict(parse_param(p) for p in params)
    if repo:
        values["repo"] = repo
    settings = command_settings()
    with cancelled_by_interrupt(), neo4j_local.open_graph(settings) as store:
        keys, rows = run_scoped_query(store, text, values, settings.cypher_timeout)
    if as_json:
        click.echo(json.dumps([dict(zip(keys, row)) for row in rows], indent=2, default=str))
    else:
        click.echo(render_table(keys, [[_cell(v) for v in row] for row in rows]))
        click.echo(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
