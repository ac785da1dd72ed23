"""The MCP server: spider's tools (`tools.py`) on the official SDK's `MCPServer`, read-only, each answer with its
secrets masked and each foreseen failure a one-line tool error (never a dead server)."""

from __future__ import annotations

import functools
import json
from importlib.metadata import version
from typing import Any, Callable

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ValidationError
from spider.core.redact import redact
from spider.core.settings import Settings
from spider.core.terminal import one_line
from spider.indexer.api import Stores
from spider.indexer.failures import foreseen, unexpected
from spider.query.mcp.budget import DEFAULT_MAX_TOKENS, as_json, elided
from spider.query.mcp.tools import TOOLS, SpiderTools

NAME = "spider"
DISTRIBUTION = "spider-code"  # what pip installs: the version the server reports is its
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
ERROR_CHARS = 500  # the longest tool error: one that repeats a caller's value (an unknown id) is elided to fit
TITLES = {"localize": "Localize an issue", "code": "Read a function's code", "neighbourhood": "Graph neighbourhood",
          "callers": "Who calls this", "callees": "What this calls", "file_outline": "Outline a file",
          "repos": "Indexed repositories", "changed": "What changed between snapshots",
          "cypher": "Read-only Cypher"}


class SpiderServer(MCPServer):
    """The SDK's server, but every tool error it answers is made here, at most ERROR_CHARS long: a value the
    caller sent (an unknown id or tool name, a statement Neo4j quotes) is elided, never echoed whole."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[Any, Any] | None = None) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            raise ToolError(elided(worded(name, exc), ERROR_CHARS)) from exc.__cause__


def worded(name: str, error: ToolError) -> str:
    """What a tool error says. Arguments that do not fit a tool's schema are named, each with what it must be,
    never with its value (pydantic's own message is multi-line and quotes it: the caller's data, perhaps a
    200,000-character issue)."""
    if not isinstance(error.__cause__, ValidationError):
        return str(error)
    wrong = "; ".join(f"{'.'.join(map(str, problem['loc'])) or 'arguments'}: {problem['msg']}"
                      for problem in error.__cause__.errors())
    return f"Error executing tool {name}: bad arguments: {wrong}"


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


def delivered(answer: BaseModel) -> CallToolResult:
    """`answer` as the client receives it, and as the budget counts it (`budget.py`): its JSON as structured
    content, and the same JSON, compact, as the text a client without structured output reads (the SDK's own
    text is indented JSON, longer than what the budget counts)."""
    return CallToolResult(content=[TextContent(type="text", text=as_json(answer))],
                          structured_content=answer.model_dump(mode="json"))


def guarded(tool: Callable[..., BaseModel], settings: Settings) -> Callable[..., CallToolResult]:
    """`tool` with its answer masked and delivered, and spider's foreseen failures (unknown repository, id or
    revision, a refused query, bad arguments, the Neo4j `settings` name gone or out of memory) as one-line tool
    errors, worded and masked as the CLI words them."""

    @functools.wraps(tool)
    def call(*args: Any, **kwargs: Any) -> CallToolResult:
        try:
            return delivered(masked(tool(*args, **kwargs)))
        except Exception as exc:
            known = foreseen(exc, settings)
            if known is None:
                raise  # a bug: the SDK answers "Error executing tool NAME" and logs its traceback
            raise ToolError(one_line(str(known))) from None
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # pyo3's PanicException (a Rust panic): not an Exception, it would end the server
            raise RuntimeError(unexpected(exc)) from exc  # so the SDK answers and logs it as the bug it is

    return call


def paragraph(doc: str | None) -> str:
    """A docstring as the one paragraph a tool's description is."""
    return " ".join((doc or "").split())


def build_server(stores: Stores, max_tokens: int = DEFAULT_MAX_TOKENS) -> MCPServer:
    """An MCP server whose tools read `stores`; answers fit `max_tokens` unless a call asks for another budget."""
    server = SpiderServer(NAME, title="spider: issue localization over a code graph", version=version(DISTRIBUTION),
                          instructions=INSTRUCTIONS, log_level="INFO")
    tools = SpiderTools(stores, max_tokens)
    for name in TOOLS:
        tool = getattr(tools, name)
        server.add_tool(guarded(tool, stores.settings), name=name, title=TITLES[name],
                        description=paragraph(tool.__doc__), annotations=READ_ONLY, structured_output=True)
    return server
