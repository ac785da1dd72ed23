"""`spider mcp`: serve spider's tools to coding agents over MCP, on stdio or streamable HTTP."""

from __future__ import annotations

import click
import uvicorn
from mcp.server.mcpserver import MCPServer
from spider.cli.error_handler import command_settings, fail_cleanly
from spider.core.errors import InvalidInput
from spider.core.settings import Settings
from spider.indexer.api import open_stores
from spider.query.mcp import build_server
from spider.query.mcp.access import OPT_OUT, TOKEN_VARIABLE, Access, Gate, access_for
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
              help="Serve streamable HTTP (stateless, POST only) at http://HOST:PORT/mcp instead of stdio; HOST "
                   f"defaults to {DEFAULT_HOST}. Anyone who can reach it can read the indexed code: with "
                   f"{TOKEN_VARIABLE} set, every request must bear it (Authorization: Bearer ...), and a HOST "
                   f"beyond loopback (0.0.0.0, a LAN address) is refused without it unless {OPT_OUT}.")
@click.option(OPT_OUT, "allow_unauthenticated", is_flag=True,
              help=f"Serve --http beyond loopback with no {TOKEN_VARIABLE}: anyone who reaches the port reads all "
                   "the indexed code. For a network you trust entirely, or behind a proxy that authenticates.")
@click.option("--max-tokens", type=click.IntRange(MIN_MAX_TOKENS, None), default=DEFAULT_MAX_TOKENS,
              show_default=True, help="The budget of an answer whose call names none (all the client receives: "
                                      "structured content and text); items past it are dropped.")
@fail_cleanly
def mcp_command(address: str | None, allow_unauthenticated: bool, max_tokens: int) -> None:
    """Serve spider to coding agents (Claude Code, Cursor, any MCP client) over the Model Context Protocol:
    localize an issue, read code, walk callers, callees and neighbourhoods, list snapshots and what changed, run
    read-only Cypher. On stdio unless --http. Registration and HTTP security: docs/mcp.md."""
    settings = command_settings()
    http = checked_http(address, allow_unauthenticated, settings) if address else None
    with open_stores(settings) as stores:  # Neo4j is reached (or started) now: a bad setting fails before serving
        server = build_server(stores, max_tokens)
        try:
            if http is None:
                server.run("stdio")
            else:
                serve_http(server, *http)
        except KeyboardInterrupt:
            pass  # Ctrl-C ends the server; it wrote nothing


def checked_http(address: str, allow_unauthenticated: bool, settings: Settings) -> tuple[str, int, Access]:
    """Where to listen and whom to answer (the settings' SPIDER_MCP_TOKEN), refused or warned about before Neo4j
    is reached."""
    host, port = parse_address(address)
    access = access_for(host, settings.mcp_token, allow_unauthenticated)
    warning = access.warning()
    if warning:
        click.echo(f"spider mcp: warning: {warning}", err=True)
    return host, port, access


def serve_http(server: MCPServer, host: str, port: int, access: Access) -> None:
    """The SDK's stateless streamable HTTP app behind the `Gate`, until Ctrl-C."""
    app = server.streamable_http_app(stateless_http=True, json_response=True, host=host,
                                     transport_security=access.transport_security())
    # log_config=None: uvicorn's own formatters read the raw arguments of a log record, which the records spider
    # masks (indexer.redact) no longer carry; its lines go to the server's handler
    uvicorn.run(Gate(app, access), host=host, port=port, log_config=None)
