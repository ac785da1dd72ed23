"""Helpers the integration tests share: run the two commands as users do, name repositories, read graphs back."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
    """`spider ARGS` as a subprocess; it inherits SPIDER_HOME (set by the session fixture): the test Neo4j."""
    return subprocess.run(
        ["spider", *map(str, args)], capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})}
    )


def spider_query(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["spider-query", *args], capture_output=True, text=True, env={**os.environ, **(env or {})})


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
    return json.loads(succeeded(run_spider("index", path, "--repo", repo, "--json", *extra)))


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
