"""The MCP server: spider's tools (`tools.py`) on the official SDK's `MCPServer`, read-only, each answer with its
secrets masked and each foreseen failure a one-line tool error (never a dead server)."""

from __future__ import annotations

import functools
import json
from typing import Any, Callable

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import BaseModel, ValidationError
from spider.indexer.api import Stores
from spider.indexer.cli.error_handler import one_line
from spider.indexer.errors import SpiderError
from spider.indexer.redact import redact
from spider.query.mcp.budget import DEFAULT_MAX_TOKENS
from spider.query.mcp.tools import TOOLS, SpiderTools

NAME = "spider"
INSTRUCTIONS = """\
spider answers "which functions must change for this issue?" over a code graph of indexed git repositories
(functions, classes, files; calls, imports, containment, inheritance) and one vector per function.

Workflow:
1. localize(issue): pass the issue's full text (title, body, stack traces, error messages). It returns exactly k
   ranked functions, each with id (path:Class.method), file, line span, score and why it is there. Call it
   before searching or editing: one call replaces a round of grep.
2. code(id): read the top results' source.
3. neighbourhood(id) / callers(id) / callees(id): what else the change touches.
file_outline(path) maps a file; repos() lists the repositories, their snapshots and whether the index is
fresh (a snapshot is one commit; tools read the newest complete one unless given rev); changed(repo, old, new)
is what a commit changed in the graph; cypher(statement) runs any read-only Cypher for what the others miss.

Ids are stable: path:Qualified.name (overloads #2, #3). A name that means several functions answers with a
short ranked list of ids to choose from. Every answer fits max_tokens (default ~20k); what did not fit is
dropped whole and the answer says so. Everything is read-only.
"""
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)
TITLES = {"localize": "Localize an issue", "code": "Read a function's code", "neighbourhood": "Graph neighbourhood",
          "callers": "Who calls this", "callees": "What this calls", "file_outline": "Outline a file",
          "repos": "Indexed repositories", "changed": "What changed between snapshots",
          "cypher": "Read-only Cypher"}


class SpiderServer(MCPServer):
    """The SDK's server, but arguments that do not fit a tool's schema are refused in one line that names each
    bad argument and what it must be, never echoing the value (pydantic's own message is multi-line and quotes
    it: the caller's data, perhaps a 200,000-character issue)."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError) or not isinstance(exc.__cause__, ValidationError):
                raise
            wrong = "; ".join(f"{'.'.join(map(str, error['loc'])) or 'arguments'}: {error['msg']}"
                              for error in exc.__cause__.errors())
            raise ToolError(f"Error executing tool {name}: bad arguments: {wrong}") from exc.__cause__


def masked(answer: BaseModel) -> BaseModel:
    """`answer` with every secret in use masked wherever it appears (code, rows, notes), as the CLI masks
    everything it prints. Masking the JSON text keeps it JSON: a secret's quoted form is masked as a whole, and
    a URI's password stops at whitespace, which the default separators put between items."""
    text = json.dumps(answer.model_dump(mode="json"))
    shown = redact(text)
    if shown == text:
        return answer
    try:
        return type(answer).model_validate(json.loads(shown))
    except ValueError:
        raise ToolError("the answer held a secret that could not be masked in place; it was withheld") from None


def guarded(tool: Callable[..., BaseModel]) -> Callable[..., BaseModel]:
    """`tool` with its answer masked and spider's foreseen failures (unknown repository, id or revision, a
    refused query, bad arguments) as one-line tool errors, worded and masked as the CLI words its errors."""

    @functools.wraps(tool)
    def call(*args: Any, **kwargs: Any) -> BaseModel:
        try:
            return masked(tool(*args, **kwargs))
        except SpiderError as exc:
            raise ToolError(one_line(str(exc))) from None

    return call


def paragraph(doc: str | None) -> str:
    """A docstring as the one paragraph a tool's description is."""
    return " ".join((doc or "").split())


def build_server(stores: Stores, max_tokens: int = DEFAULT_MAX_TOKENS) -> MCPServer:
    """An MCP server whose tools read `stores`; answers fit `max_tokens` unless a call asks for another budget."""
    server = SpiderServer(NAME, title="spider: issue localization over a code graph",
                          instructions=INSTRUCTIONS, log_level="INFO")
    tools = SpiderTools(stores, max_tokens)
    for name in TOOLS:
        tool = getattr(tools, name)
        server.add_tool(guarded(tool), name=name, title=TITLES[name], description=paragraph(tool.__doc__),
                        annotations=READ_ONLY, structured_output=True)
    return server
