"""`spider mcp` as agents start it: a real subprocess over stdio and over streamable HTTP, talked to with the SDK's
client, with secrets planted in its environment that no result and no log line may show; and its startup
errors, one line and exit 2 like every spider command."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from spider.query.mcp import TOOLS
from spider.query.mcp.access import TOKEN_VARIABLE

from tests.integration.helpers import ISSUE, one_line_error, run_spider
from tests.integration.query.mcp.conftest import PLANTED_KEY, all_text, call_tools, error_text, structured

PLANTED = {"SPIDER_OPENAI_API_KEY": PLANTED_KEY, "ANTHROPIC_API_KEY": "sk-ant-planted-mcp-2b7e",
           "QDRANT_API_KEY": "planted-qdrant-key-mcp-5d1c"}  # every call below names its selector: no LLM is called


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def agent_session(client, repo: str, password: str) -> tuple[list[str], list]:
    """What an agent does in a session, right and wrong: every call's result."""
    names = [tool.name for tool in (await client.list_tools()).tools]
    calls = [
        ("localize", {"issue": ISSUE, "repo": repo, "k": 3, "selector": "learned"}),
        ("code", {"id": "vendor_token", "repo": repo}),
        ("cypher", {"statement": "CREATE (n:Function {repo: 'mcp-evil', id: 'x'}) RETURN n"}),
        ("code", {"id": "ghost", "repo": repo}),
        ("localize", {"issue": ISSUE, "repo": "nope/nope", "selector": "learned"}),
        ("cypher", {"statement": "RETURN $p AS p", "params": {"p": password}}),
        ("repos", {}),
    ]
    return names, [await client.call_tool(name, arguments) for name, arguments in calls]


def check_session(names: list[str], results: list, repo: str, secrets: list[str]) -> None:
    localized, code, write, ghost, nowhere, echoed, repos = results
    assert names == list(TOOLS)
    assert len(structured(localized)["results"]) == 3
    assert structured(code)["code"] == 'def vendor_token():\n    return "***"\n'
    assert "refused: it writes to the graph" in error_text(write)
    assert "no function 'ghost'" in error_text(ghost)
    assert "no repository named 'nope/nope'" in error_text(nowhere)
    assert structured(echoed)["rows"] == [{"p": "***"}]
    assert repo in {entry["repo"] for entry in structured(repos)["repositories"]}
    shown = all_text(results)
    assert not [secret for secret in secrets if secret in shown]


def check_log(log: Path, secrets: list[str]) -> None:
    text = log.read_text(errors="replace")
    assert "Traceback" not in text
    assert not [secret for secret in secrets if secret in text], text[-2000:]


@pytest.fixture
def secrets(neo4j_settings) -> list[str]:
    return [*PLANTED.values(), neo4j_settings.password]


def test_a_stdio_server_answers_an_agents_session_and_leaks_nothing(indexed, secrets, neo4j_settings, tmp_path):
    log = tmp_path / "stderr.log"
    params = StdioServerParameters(command="spider", args=["mcp"], env={**os.environ, **PLANTED})
    with log.open("w") as errlog:
        names, results = call_tools(stdio_client(params, errlog=errlog),
                                    lambda client: agent_session(client, indexed.repo, neo4j_settings.password))
    check_session(names, results, indexed.repo, secrets)
    check_log(log, secrets)


@contextmanager
def http_server(address: str, log: Path, *args: str, env: dict[str, str] = PLANTED) -> Iterator[int]:
    """`spider mcp --http ADDRESS ARGS` with its output in `log`, once its port answers; yields the port."""
    port = free_port()
    with log.open("w") as errlog:
        server = subprocess.Popen(["spider", "mcp", "--http", f"{address}:{port}", *args], stdout=errlog,
                                  stderr=errlog, env={**os.environ, **env})
    try:
        deadline = time.monotonic() + 120
        while server.poll() is None and time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        assert server.poll() is None, log.read_text()
        yield port
    finally:
        server.terminate()
        server.wait(timeout=60)


def with_token(url: str, token: str):
    """The SDK's HTTP transport to `url`, sending `token` as its bearer credential."""
    bearer = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
    return streamable_http_client(url, http_client=bearer)


def test_an_http_server_answers_an_agents_session_and_leaks_nothing(indexed, secrets, neo4j_settings, tmp_path):
    log = tmp_path / "stderr.log"
    with http_server("127.0.0.1", log) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        names, results = call_tools(url, lambda client: agent_session(client, indexed.repo, neo4j_settings.password))
        with httpx2.stream("GET", url, headers={"Accept": "text/event-stream"}, timeout=30) as stream:
            pushed = (stream.status_code, stream.headers.get("allow"))  # read no body: an SSE one never ends
    check_session(names, results, indexed.repo, secrets)
    check_log(log, secrets)
    assert "POST /mcp" in log.read_text()  # the log is there, masked, not empty
    assert pushed == (405, "POST")  # a stateless server has nothing to push: no stream that never ends


def test_an_http_server_beyond_loopback_answers_only_the_bearer_of_its_token(indexed, secrets, neo4j_settings,
                                                                           tmp_path):
    log, token = tmp_path / "stderr.log", "shared-server-token-4c1d9e7b2a"
    with http_server("0.0.0.0", log, env={**PLANTED, TOKEN_VARIABLE: token}) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        names, results = call_tools(with_token(url, token),
                                    lambda client: agent_session(client, indexed.repo, neo4j_settings.password))
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        json_headers = {"Accept": "application/json, text/event-stream"}
        anonymous = httpx2.post(url, json=initialize, headers=json_headers, timeout=30)
        impostor = httpx2.post(url, json=initialize, headers={**json_headers, "Authorization": "Bearer guess"},
                              timeout=30)
        browser = httpx2.post(url, json=initialize, timeout=30, headers={
            **json_headers, "Authorization": f"Bearer {token}", "Origin": "http://evil.example"})
    check_session(names, results, indexed.repo, [*secrets, token])
    check_log(log, [*secrets, token])
    assert (anonymous.status_code, impostor.status_code, browser.status_code) == (401, 401, 403)
    assert log.read_text().startswith("spider mcp: warning: listening on 0.0.0.0, beyond this machine: every "
                                      "request must bear the token of SPIDER_MCP_TOKEN")


@pytest.mark.parametrize("args, env, message", [
    (("--http", "nowhere"), {}, "--http takes HOST:PORT or PORT (e.g. 127.0.0.1:8765), not 'nowhere'"),
    (("--http", "127.0.0.1:99999"), {}, "--http takes HOST:PORT or PORT"),
    ((), {"NEO4J_URI": "bolt://127.0.0.1:1"}, "cannot reach Neo4j at bolt://127.0.0.1:1"),
    (("--http", "0.0.0.0:8765"), {}, ("--http 0.0.0.0 is reachable beyond this machine and would serve all indexed "
                                      "code to anyone: set SPIDER_MCP_TOKEN")),
    (("--http", "[::]:8765"), {}, "or pass --allow-unauthenticated"),
    (("--http", "0.0.0.0:8765"), {"SPIDER_MCP_TOKEN": "guessable"}, "SPIDER_MCP_TOKEN must be at least 16"),
])
def test_a_server_that_cannot_start_says_why_in_one_line(args, env, message, neo4j_settings):
    failed = run_spider("mcp", *args, env={**PLANTED, **env}, timeout=120)
    assert message in one_line_error(failed)
