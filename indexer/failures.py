"""Which failures spider foresees, for the doors that report them (the CLI's error handler, the MCP server): its own
SpiderErrors, and failures of its environment that a library raises in its own class; anything else is a bug."""

from __future__ import annotations

from spider.core.errors import SpiderError
from spider.core.settings import Settings
from spider.core.terminal import one_line
from spider.indexer.disk_space import disk_failure
from spider.indexer.graph.store import graph_failure


def foreseen(error: BaseException, settings: Settings) -> SpiderError | None:
    """`error` as the user-facing failure it is, or None for a bug: a SpiderError, or a failure of spider's
    environment that a library raises in its own class (`graph_failure`: the Neo4j `settings` name gone, its
    memory limit reached; `disk_failure`: a full disk)."""
    if isinstance(error, SpiderError):
        return error
    return graph_failure(error, settings.neo4j) or disk_failure(error)


def unexpected(error: BaseException) -> str:
    """How a bug is reported: its class and the first line of its message."""
    detail = one_line(str(error))
    return f"unexpected {type(error).__name__}{': ' * bool(detail)}{detail}"
