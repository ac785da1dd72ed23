"""A tool whose store fails answers a one-line tool error, and the server answers the next call: Neo4j gone or out
of memory is worded as the CLI words it, and a Rust panic (pyo3's PanicException, a BaseException the SDK does not
catch) is answered as the bug it is instead of ending the server."""

from __future__ import annotations

import anyio
import neo4j
import pytest
from mcp import Client
from spider.core.settings import Settings
from spider.indexer.api import Stores
from spider.query.mcp import build_server

from tests.fixtures.bounded import run_bounded
from tests.unit.cli.test_error_handler import PanicException, memory_pool_error


class FailingGraph:
    """A graph store whose first listing of snapshots raises `error`, and whose later ones find none."""

    def __init__(self, error: BaseException) -> None:
        self.errors = [error]

    def list_snapshots(self, repo: str | None = None) -> list:
        if self.errors:
            raise self.errors.pop()
        return []


def repos_twice(error: BaseException) -> tuple[str, dict]:
    """The first `repos` call's error text and the second's answer, from a server whose graph raises `error`."""
    server = build_server(Stores(FailingGraph(error), Settings()))  # type: ignore[arg-type]  # the one method used

    async def session() -> tuple[str, dict]:
        async with Client(server) as client:
            failed, answered = await client.call_tool("repos", {}), await client.call_tool("repos", {})
        assert failed.is_error and not answered.is_error
        return failed.content[0].text, answered.structured_content

    return run_bounded(lambda: anyio.run(session), seconds=30)


@pytest.mark.parametrize("error, says", [
    (neo4j.exceptions.ServiceUnavailable("Failed to read from defunct connection"),
     "the local Neo4j stopped answering: start it with `spider neo4j start` (`spider neo4j status` shows its state), "
     "then try again"),
    (memory_pool_error(), "the query needed more memory than Neo4j lets a transaction use (The allocation of an extra"),
])
def test_neo4j_gone_or_out_of_memory_is_the_clis_line_as_a_tool_error(monkeypatch, error, says):
    monkeypatch.delenv("NEO4J_URI", raising=False)
    text, answer = repos_twice(error)
    assert text.startswith(f"Error executing tool repos: {says}") and "\n" not in text
    assert answer["repositories"] == []


def test_a_panic_is_answered_as_a_bug_and_the_server_lives_on():
    text, answer = repos_twice(PanicException("index out of bounds: the len is 0 but the index is 0"))
    assert text == "Error executing tool repos"
    assert answer["repositories"] == []
