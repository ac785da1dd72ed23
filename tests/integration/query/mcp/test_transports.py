"""`spider mcp` as agents start it: a real subprocess over stdio and over streamable HTTP, talked to with the SDK's
client, with secrets planted in its environment that no result and no log line may show; and its startup
errors, one line and exit 2 like every spider command."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client
from spider.query.mcp import TOOLS

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


def test_an_http_server_answers_an_agents_session_and_leaks_nothing(indexed, secrets, neo4j_settings, tmp_path):
    port, log = free_port(), tmp_path / "stderr.log"
    with log.open("w") as errlog:
        server = subprocess.Popen(["spider", "mcp", "--http", f"127.0.0.1:{port}"], stdout=errlog, stderr=errlog,
                                  env={**os.environ, **PLANTED})
    try:
        deadline = time.monotonic() + 120
        while server.poll() is None and time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        assert server.poll() is None, log.read_text()
        names, results = call_tools(f"http://127.0.0.1:{port}/mcp",
                                    lambda client: agent_session(client, indexed.repo, neo4j_settings.password))
    finally:
        server.terminate()
        server.wait(timeout=60)
    check_session(names, results, indexed.repo, secrets)
    check_log(log, secrets)
    assert "POST /mcp" in log.read_text()  # the log is there, masked, not empty


@pytest.mark.parametrize("args, env, message", [
    (("--http", "nowhere"), {}, "--http takes HOST:PORT or PORT (e.g. 127.0.0.1:8765), not 'nowhere'"),
    (("--http", "127.0.0.1:99999"), {}, "--http takes HOST:PORT or PORT"),
    ((), {"NEO4J_URI": "bolt://127.0.0.1:1"}, "cannot reach Neo4j at bolt://127.0.0.1:1"),
])
def test_a_server_that_cannot_start_says_why_in_one_line(args, env, message, neo4j_settings):
    failed = run_spider("mcp", *args, env={**PLANTED, **env}, timeout=120)
    assert message in one_line_error(failed)
