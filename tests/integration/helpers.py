"""Helpers the integration tests share: run the two commands (in this process, or as users do, as a subprocess),
name repositories, read graphs back, watch the local Neo4j's threads."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
import traceback
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from click.testing import CliRunner
from spider.indexer.graph import neo4j_local
from spider.indexer.graph.store import GraphStore
from spider.indexer.pipeline import stages
from spider.indexer.vectors import embed_stage

ISSUE = "checkout charges the wrong amount: the discount is applied twice to the order total"

IN_SNAPSHOT = """
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (n:Directory|File|Class|Function {repo: $repo}) WHERE n.since <= v.seq < n.until
"""  # a snapshot's nodes: the versions of its repository its number falls in
GRAPH_NODES = IN_SNAPSHOT + """
RETURN labels(n)[0] AS label, n.id AS id, n.start_line AS start, n.end_line AS end, n.code AS code,
       n.content_hash AS hash, n.language AS language
"""
GRAPH_EDGES = """
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (a {repo: $repo})-[r]->(b) WHERE r.since <= v.seq < r.until
RETURN type(r) AS type, a.id AS src, b.id AS dst, r.resolution AS resolution,
       b.repo = a.repo AND a.since <= v.seq < a.until AND b.since <= v.seq < b.until AS same
"""


def run_spider(*args: object, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """`spider ARGS` as a subprocess; it inherits SPIDER_HOME (set by the session fixture): the test Neo4j. For what
    only a real process shows (the console script, signals, what reaches a terminal); `invoke_spider` for the rest."""
    return subprocess.run(
        ["spider", *map(str, args)], capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})}
    )


def spider_query(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`spider-query ARGS` as a subprocess (see `run_spider`)."""
    return subprocess.run(["spider-query", *args], capture_output=True, text=True, env={**os.environ, **(env or {})})


class _LastResort(logging.Handler):
    """What a fresh interpreter does with a warning no handler takes (logging.lastResort): its message on stderr.
    In here pytest's handler takes every record, which would hide from a test what a user would see."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        sys.stderr.write(record.getMessage() + "\n")


def _show_on_stderr(message, category, filename, lineno, file=None, line=None) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


@contextmanager
def _as_a_fresh_process() -> Iterator[None]:
    """Warnings and log records reach stderr as they would in a process of their own (Python's default warning
    filters; logging's last resort for records no handler of the command's takes), not pytest's capture."""
    last_resort = _LastResort()
    root = logging.getLogger()
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
            warnings.simplefilter("ignore", category)
        warnings.showwarning = _show_on_stderr
        root.addHandler(last_resort)
        try:
            yield
        finally:
            root.removeHandler(last_resort)


def invoke(program: str, *args: object, env: dict[str, str] | None = None, input: bytes | str | None = None,
           text: bool = True) -> subprocess.CompletedProcess:
    """`program ARGS` (spider or spider-query) run in this process by click's CliRunner, as `run_spider` runs it as
    a subprocess, minus the interpreter's start-up: the same error handler and exit codes (a SystemExit's code), stdout
    and stderr apart (as bytes unless `text`), `env` over os.environ for the call, `input` as stdin (else empty). An
    exception that escapes the command shows as an uncaught one would: its traceback on stderr, exit 1."""
    from spider.cli.ask import query_command
    from spider.cli.main import main

    command = {"spider": main, "spider-query": query_command}[program]
    with _as_a_fresh_process():
        result = CliRunner().invoke(command, [str(a) for a in args], input=input, env=env, prog_name=program)
    stdout, stderr = result.stdout_bytes, result.stderr_bytes
    returncode = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(*result.exc_info)).encode()
        returncode = 1
    if text:
        return subprocess.CompletedProcess([program, *args], returncode, stdout.decode("utf-8", "replace"),
                                           stderr.decode("utf-8", "replace"))
    return subprocess.CompletedProcess([program, *args], returncode, stdout, stderr)


def invoke_spider(*args: object, env: dict[str, str] | None = None,
                  input: bytes | str | None = None) -> subprocess.CompletedProcess:
    """`spider ARGS` in this process (see `invoke`)."""
    return invoke("spider", *args, env=env, input=input)


def invoke_spider_query(*args: object, env: dict[str, str] | None = None,
                        input: bytes | str | None = None) -> subprocess.CompletedProcess:
    """`spider-query ARGS` in this process (see `invoke`)."""
    return invoke("spider-query", *args, env=env, input=input)


def succeeded(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def one_line_error(result: subprocess.CompletedProcess) -> str:
    """Exit 2, exactly one `spider: error: ...` line on stderr, nothing on stdout; returns that line."""
    assert "Traceback" not in result.stderr
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("spider: error: "), result.stderr
    assert result.stdout == ""
    return lines[0]


def index_json(path: Path, repo: str, *extra: str) -> dict:
    """`spider index PATH --repo REPO --json EXTRA` as a subprocess: its JSON summary."""
    return json.loads(succeeded(run_spider("index", path, "--repo", repo, "--json", *extra)))


def invoke_index_json(path: Path, repo: str, *extra: str) -> dict:
    """`spider index PATH --repo REPO --json EXTRA` in this process: its JSON summary."""
    return json.loads(succeeded(invoke_spider("index", path, "--repo", repo, "--json", *extra)))


def unique_name() -> str:
    return f"test/{uuid.uuid4().hex[:10]}"


def read_graph(store: GraphStore, repo: str, snapshot: str) -> tuple[list[dict], list[dict]]:
    params = {"repo": repo, "snapshot": snapshot}
    keys, rows = store.read(GRAPH_NODES, params)
    nodes = [dict(zip(keys, r)) for r in rows]
    keys, rows = store.read(GRAPH_EDGES, params)
    return nodes, [dict(zip(keys, r)) for r in rows]


def row_set(store: GraphStore, query: str, **params: object) -> set[tuple]:
    """The rows of a read query, as a set of tuples."""
    _, rows = store.read(query, params)
    return {tuple(row) for row in rows}


@contextmanager
def one_window_per_function(monkeypatch) -> Iterator:
    """Inside it spider embeds each function's first window alone, as spiders before windows of code did (both
    modules that read the cap see 1); yields the monkeypatch context for more of that older machine."""
    with monkeypatch.context() as older:
        older.setattr(embed_stage, "WINDOWS_PER_FUNCTION", 1)
        older.setattr(stages, "WINDOWS_PER_FUNCTION", 1)
        yield older


# What `spider cypher` and Neo4j Browser's reader must have stopped on the server, and how a test sees that it was
# (test_cypher_gate.py, test_neo4j_browser.py) -----------------------------------------------------------------------

# Statements whose whole cost is inside one expression (issue 45): Neo4j checks a transaction's termination between
# rows only, and each of these is one row; the launcher's ExpressionGuard makes every expression check it. {name}
# names the result column, so that SHOW TRANSACTIONS tells the test's statement from others'.
EXPRESSION_COSTS = {
    "reduce_arithmetic": "RETURN reduce(n = 0, x IN range(1, 100000) | n + reduce(m = 0, y IN range(1, 100000) | "
                         "m + y % 7)) AS {name}",
    "reduce_over_strings": "RETURN reduce(n = 0, x IN range(1, 100000) | n + reduce(m = 0, y IN range(1, 100000) | "
                           "m + size('aaaaaaaaaa'))) AS {name}",
    "nested_quantifier": "RETURN any(x IN range(1, 100000) WHERE any(y IN range(1, 100000) WHERE x * y < 0)) "
                         "AS {name}",
}
# Statements whose one expression builds (keeps, doubles, multiplies) more than the 2 GB heap spares, each list under
# the 10-million-element limit. Without ExpressionGuard's account many_kept_lists, string_tripling, replace_growth and
# split_into_characters ended the server (OutOfMemoryError, -XX:+ExitOnOutOfMemoryError); string_doubling failed
# with an internal error (-2147483648) at Java's string limit; the others ran, near the edge (a 1 GiB string, 10
# million strings, a 200,000-step copy that took a minute). ExpressionGuard charges what expressions build to the
# statement (at most 256 MiB), so each is refused in moments, and the server lives on.
MEMORY_BOMBS = {
    "many_kept_lists": "RETURN size([x IN range(1, 100000) | [y IN range(1, 100000) | 1]]) AS n",
    "string_doubling": "RETURN size(reduce(s = 'a', x IN range(1, 40) | s + s)) AS n",
    "string_tripling": "RETURN size(reduce(s = 'a', x IN range(1, 40) | s + s + s)) AS n",
    "list_doubling": "RETURN size(reduce(l = [1], x IN range(1, 40) | l + l)) AS n",
    "list_copying": "RETURN size(reduce(l = [], x IN range(1, 200000) | [y IN l | y] + x)) AS n",
    "replace_growth": "RETURN size(reduce(s = 'a', x IN range(1, 20) | replace(s, 'a', 'aaaa'))) AS n",
    "replace_square": "WITH reduce(s = 'a', x IN range(1, 15) | s + s) AS s RETURN size(replace(s, 'a', s)) AS n",
    "split_into_characters": "RETURN size(split(reduce(s = 'a', x IN range(1, 26) | s + s), '')) AS n",
    "many_kept_strings": "RETURN size([x IN range(1, 10000000) | 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' + x]) AS n",
}
# Generous: the machine running the tests is shared and noisy. Without the guard these ran for minutes.
SLACK = 30


def running(store, text: str) -> list[str]:
    """The transactions running a statement that contains `text` (past the gate's EXPLAIN of it)."""
    rows = store.driver.execute_query("SHOW TRANSACTIONS YIELD transactionId, currentQuery WHERE currentQuery "
                                      "CONTAINS $text AND NOT currentQuery STARTS WITH 'EXPLAIN' "
                                      "RETURN transactionId", text=text)[0]
    return [r["transactionId"] for r in rows]


def thread_cpu() -> dict[str, float]:
    """CPU seconds each thread of the local Neo4j has used (Linux /proc); empty where that cannot be read."""
    pid = neo4j_local.status()["pid"]
    times = {}
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended
            continue
        times[stat.parent.name] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return times


def assert_the_server_let_go(store, marker: str, before: dict[str, float]) -> None:
    """The statement whose column is `marker` is no longer running on the server, and the thread that was busiest
    since `before` (the one that evaluated it) has gone idle, not on in the background."""
    during = thread_cpu()
    deadline = time.monotonic() + 10
    while running(store, f"AS {marker}") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert running(store, f"AS {marker}") == []
    if during:
        busiest = max(during, key=lambda thread: during[thread] - before.get(thread, 0.0))
        time.sleep(3)
        assert thread_cpu().get(busiest, 0.0) - during[busiest] < 1.0, "the server still evaluates the statement"
