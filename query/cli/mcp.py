"""`spider mcp`: serve spider's tools to coding agents over MCP, on stdio or streamable HTTP."""

from __future__ import annotations

import click
import uvicorn
from spider.indexer.api import open_stores
from spider.indexer.cli.error_handler import fail_cleanly
from spider.indexer.errors import InvalidInput
from spider.query.mcp import build_server
from spider.query.mcp.budget import DEFAULT_MAX_TOKENS, MIN_MAX_TOKENS

DEFAULT_HOST = "127.0.0.1"


def parse_address(address: str) -> tuple[str, int]:
    """`HOST:PORT`, `[IPv6]:PORT` or `PORT` (on 127.0.0.1): where the HTTP server listens."""
    host, colon, port = address.rpartition(":")
    host = host.strip("[]") if colon else DEFAULT_HOST
    if not port.isdigit() or not 0 < int(port) < 65536 or (colon and not host):
        raise InvalidInput(f"--http takes HOST:PORT or PORT (e.g. 127.0.0.1:8765), not {address!r}")
    return host, int(port)


@click.command("mcp")
@click.option("--http", "address", metavar="HOST:PORT",
              help="Serve streamable HTTP (stateless) at http://HOST:PORT/mcp instead of stdio; HOST defaults to "
                   f"{DEFAULT_HOST}. Anyone who can reach it can read the indexed code: keep it on localhost.")
@click.option("--max-tokens", type=click.IntRange(MIN_MAX_TOKENS, None), default=DEFAULT_MAX_TOKENS,
              show_default=True, help="The budget of an answer whose call names none; items past it are dropped.")
@fail_cleanly
def mcp_command(address: str | None, max_tokens: int) -> None:
    """Serve spider to coding agents (Claude Code, Cursor, any MCP client) over the Model Context Protocol:
    localize an issue, read code, walk callers, callees and neighbourhoods, list snapshots and what changed, run
    read-only Cypher. On stdio unless --http. Registration: docs/mcp.md."""
    where = parse_address(address) if address else None
    with open_stores() as stores:  # Neo4j is reached (or started) now: a bad setting fails before serving
        server = build_server(stores, max_tokens)
        try:
            if where is None:
                server.run("stdio")
            else:
                app = server.streamable_http_app(stateless_http=True, json_response=True, host=where[0])
                # log_config=None: uvicorn's own formatters read the raw arguments of a log record, which the
                # records spider masks (indexer.redact) no longer carry; its lines go to the server's handler
                uvicorn.run(app, host=where[0], port=where[1], log_config=None)
        except KeyboardInterrupt:
            pass  # Ctrl-C ends the server; it wrote nothing
