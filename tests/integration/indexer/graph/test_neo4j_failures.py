"""Neo4j dying mid-command, or a query outgrowing the memory Neo4j lets transactions have, is no bug of spider's:
`spider cypher` says so in one line and exits 2, without the driver's own log lines, and the MCP tool `cypher`
answers the same line as a tool error, then serves the next call. The shared test server is never harmed: a relay
in front of it drops its connections, and the local server that dies or runs out of memory is a throwaway one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from neo4j import GraphDatabase
from spider.core.settings import Settings
from spider.indexer import open_stores
from spider.query.mcp import build_server

from tests.fixtures.bounded import run_bounded
from tests.fixtures.severing_proxy import MARKER, SeveringProxy
from tests.integration.query.mcp.conftest import call_tools, error_text, structured

DYING = f"RETURN '{MARKER.decode()}' AS x"  # the relay drops every connection when this statement is sent
# Rows from short lists (Neo4j may refuse to build one list of millions): 400M integers collected, past 1.4 GiB;
# and 10^10 rows, filtered in little memory until the query is stopped.
HUGE = "UNWIND range(1, 20000) AS a UNWIND range(1, 20000) AS b RETURN size(collect(a)) AS n"
ENDLESS = "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b WITH a, b WHERE a + b = -1 RETURN a"


@pytest.fixture
def proxy(neo4j_settings):
    address = urlsplit(neo4j_settings.uri)
    with SeveringProxy((address.hostname, address.port)) as relay:
        yield relay


def gone(port: int) -> str:
    return f"Neo4j at bolt://127.0.0.1:{port} stopped answering: check that it runs and is reachable, then try again"


def test_spider_cypher_on_a_neo4j_that_dies_says_so_in_one_line(neo4j_settings, proxy, tmp_path):
    statement = tmp_path / "dying.cypher"
    statement.write_text(DYING)
    env = {**os.environ, "NEO4J_URI": f"bolt://127.0.0.1:{proxy.port}", "NEO4J_USER": neo4j_settings.user,
           "NEO4J_PASSWORD": neo4j_settings.password}
    result = subprocess.run(["spider", "cypher", str(statement)], capture_output=True, text=True, env=env, timeout=120)
    assert (result.returncode, result.stderr.splitlines()) == (2, [f"spider: error: {gone(proxy.port)}"])


def test_the_mcp_cypher_tool_answers_a_dying_neo4j_with_that_line_and_serves_the_next_call(neo4j_settings, proxy):
    settings = Settings(neo4j_uri=f"bolt://127.0.0.1:{proxy.port}", neo4j_user=neo4j_settings.user,
                        neo4j_password=neo4j_settings.password)

    async def session(client):
        return (await client.call_tool("cypher", {"statement": DYING}),
                await client.call_tool("cypher", {"statement": "RETURN 1 AS one"}))

    with open_stores(settings) as stores:
        died, answered = run_bounded(lambda: call_tools(build_server(stores), session), seconds=60)
    assert error_text(died) == f"Error executing tool cypher: {gone(proxy.port)}"
    assert structured(answered)["rows"] == [{"one": 1}]


# ---- the local server, a throwaway one: out of memory, then killed mid-query ----------------------------------------


@pytest.fixture(scope="module")
def throwaway(tmp_path_factory) -> dict[str, str]:
    """The environment of a local Neo4j of its own (SPIDER_HOME), started; stopped afterwards if still running."""
    home = tmp_path_factory.mktemp("throwaway-neo4j")
    env = {name: value for name, value in os.environ.items() if not name.startswith("NEO4J_")}
    env["SPIDER_HOME"] = str(home)
    subprocess.run(["spider", "neo4j", "start"], env=env, check=True, capture_output=True, timeout=900)
    yield env
    subprocess.run(["spider", "neo4j", "stop"], env=env, check=True, capture_output=True, timeout=120)


def spider_cypher(statement: str, env: dict[str, str], folder: Path) -> subprocess.Popen:
    path = folder / "statement.cypher"
    path.write_text(statement)
    return subprocess.Popen(["spider", "cypher", str(path)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def test_a_query_past_neos_memory_limit_says_so_in_one_line(throwaway, tmp_path):
    """Neo4j's default limit for all transactions together is 70% of its heap (1.4 GiB of the local server's 2)."""
    failed = spider_cypher(HUGE, throwaway, tmp_path)
    _, stderr = failed.communicate(timeout=300)
    (line,) = stderr.splitlines()
    assert failed.returncode == 2
    assert line.startswith("spider: error: the query needed more memory than Neo4j lets a transaction use (The "
                           "allocation of an extra ")
    assert line.endswith("threshold reached): narrow it (a LIMIT, fewer hops, no collect() of everything), or raise "
                         "that limit")


def test_the_local_neo4j_killed_mid_query_says_how_to_start_it_in_one_line(throwaway, tmp_path):
    state = Path(throwaway["SPIDER_HOME"]) / "neo4j"
    record = json.loads((state / "server.json").read_text())
    running = spider_cypher(ENDLESS, throwaway, tmp_path)
    with GraphDatabase.driver(f"bolt://127.0.0.1:{record['port']}",
                              auth=("neo4j", (state / "password").read_text().strip())) as admin:
        deadline = time.monotonic() + 120
        while not admin.execute_query("SHOW TRANSACTIONS YIELD currentQuery WHERE currentQuery CONTAINS $text "
                                      "RETURN 1", text=ENDLESS).records:
            assert time.monotonic() < deadline and running.poll() is None, running.stderr.read()
            time.sleep(0.2)
    os.kill(record["pid"], signal.SIGKILL)
    _, stderr = running.communicate(timeout=120)
    assert (running.returncode, stderr.splitlines()) == (2, [
        "spider: error: the local Neo4j stopped answering: start it with `spider neo4j start` (`spider neo4j status` "
        "shows its state), then try again"])
