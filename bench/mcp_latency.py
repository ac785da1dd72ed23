"""`localize` latency through MCP against the CLI's: the same issues answered by `spider-query` (a fresh process
per issue, as an agent without MCP runs it), by one `spider mcp` server over stdio and over streamable HTTP
(the SDK's client, one session each, kept open), and by the Python API in this process (the floor: no
transport, no process start). The four ways take turns per issue, the first way rotating, so load drifts hit
them alike. The first MCP call of a server loads the embedding model and is reported apart.

The snapshot must already be indexed with embeddings (`spider index`). Issue texts are real benchmark issues
(the repository's own first, then others'), so every query differs.

    python bench/mcp_latency.py --repo shop --queries 20 -k 10

(Not bench/mcp.py: a script's folder comes first on sys.path, and `mcp` must be the SDK.)
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import socket
import subprocess
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from _common import ROOT
from environment import machine, spider_commit  # bench/environment.py
from latency import issue_texts, percentiles  # bench/latency.py
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from spider.indexer import open_stores
from spider.query import localize

WAYS = ("cli", "mcp stdio", "mcp http", "api")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, server: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"spider mcp --http exited with {server.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"spider mcp --http did not listen on {port} within {timeout:.0f} s")


async def measure(args: argparse.Namespace, texts: list[str]) -> dict[str, Any]:
    """Seconds per issue for each way, plus the MCP servers' first calls (model load included)."""
    arguments = {"repo": args.repo, "k": args.k, "selector": args.selector}
    samples: dict[str, list[float]] = {way: [] for way in WAYS}
    first: dict[str, float] = {}
    port = free_port()
    log = (args.out / "mcp-server.log").open("w")
    http = subprocess.Popen(["spider", "mcp", "--http", f"127.0.0.1:{port}"], stdout=log, stderr=log)  # noqa: ASYNC220
    try:
        async with AsyncExitStack() as stack:
            clients = {
                "mcp stdio": await stack.enter_async_context(Client(stdio_client(
                    StdioServerParameters(command="spider", args=["mcp"], env=dict(os.environ)), errlog=log))),
            }
            wait_for_port(port, http)
            clients["mcp http"] = await stack.enter_async_context(Client(f"http://127.0.0.1:{port}/mcp"))
            for way, client in clients.items():  # the first call loads the model: apart
                clock = time.perf_counter()
                result = await client.call_tool("localize", {"issue": texts[0], **arguments})
                first[way] = time.perf_counter() - clock
                if result.is_error:
                    raise SystemExit(f"{way}: {result.content[0].text}")
            with open_stores() as stores:
                localize(stores, texts[0], repo=args.repo, k=args.k, selector=args.selector)  # warm, apart
                for number, text in enumerate(texts[1:], start=1):
                    for turn in range(len(WAYS)):
                        way = WAYS[(number + turn) % len(WAYS)]
                        clock = time.perf_counter()
                        if way == "cli":
                            subprocess.run(["spider-query", text,  # noqa: ASYNC221 - timed: blocking on purpose
                                            "--repo", args.repo, "-k", str(args.k),
                                            "--selector", args.selector, "--json"], check=True,
                                           capture_output=True)
                        elif way == "api":
                            localize(stores, text, repo=args.repo, k=args.k, selector=args.selector)
                        else:
                            result = await clients[way].call_tool("localize", {"issue": text, **arguments})
                            assert not result.is_error, result.content
                        samples[way].append(time.perf_counter() - clock)
                    print(f"  {number}/{len(texts) - 1} done", end="\r", flush=True)
    finally:
        http.terminate()
        http.wait(timeout=60)
        log.close()
    print()
    return {"seconds": {way: percentiles(values) for way, values in samples.items()},
            "first_mcp_call_with_model_load_s": {way: round(seconds, 3) for way, seconds in first.items()}}


def render(result: dict[str, Any]) -> str:
    rows = "\n".join(f"| {way} | {s['p50']:.3f} | {s['p95']:.3f} | {s['max']:.3f} |"
                     for way, s in result["seconds"].items())
    firsts = ", ".join(f"{way} {seconds:.2f} s" for way, seconds in result["first_mcp_call_with_model_load_s"].items())
    return f"""# `localize` through MCP and through the CLI

`{result['command']}`, {result['when']}: {result['queries']} benchmark issues, k = {result['k']}, selector
{result['selector']}, on {result['repo']} @ {result['snapshot'][:12]} ({result['functions']} functions, model
{result['model']}). Seconds per issue, the ways taking turns per issue:

| way | p50 | p95 | max |
|---|---|---|---|
{rows}

- **cli**: `spider-query … --json`, a fresh process per issue: interpreter start, imports, Neo4j connection,
  embedding model load and vector store open, every time.
- **mcp stdio**, **mcp http**: one `spider mcp` server each, one SDK client session kept open; the server keeps
  its process, imports, Neo4j connection, embedding model and the snapshot's BM25 index; it opens the vector store
  on every call (a Qdrant Edge store is locked by whoever holds it open, and `spider index` must be able to
  write). Their first calls (not in the table): {firsts}.
- **api**: `spider.query.localize` in this process, warm: the floor, with no transport at all.

Load average at start and end: {result['loadavg_start_end']}. Machine: {result['machine']['nproc']} cores,
{result['machine']['cpu_model']}; mcp {result['machine']['mcp']}. Total wall time {result['wall_seconds']} s.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--selector", default="learned", help="learned needs no LLM (the default)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    started, load_before = time.time(), os.getloadavg()
    texts = issue_texts(args.repo, args.queries + 1)  # the first warms each server
    with open_stores() as stores:
        snapshot = stores.graph.resolve_snapshot(args.repo)
        model = stores.graph.snapshot_embedding(args.repo, snapshot)
    measured = anyio.run(measure, args, texts)
    result = {
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "repo": args.repo, "snapshot": snapshot, "functions": model.functions if model else None,
        "model": model.model if model else None, "k": args.k, "selector": args.selector,
        "queries": len(texts) - 1, **measured,
        "wall_seconds": round(time.time() - started, 1),
        "loadavg_start_end": [[round(load, 2) for load in loads] for loads in (load_before, os.getloadavg())],
        "machine": machine(("mcp", "neo4j", "fastembed")), "spider": spider_commit(),
    }
    (args.out / "mcp.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "mcp.md").write_text(render(result))
    (args.out / "mcp-server.log").unlink()
    print(render(result))


if __name__ == "__main__":
    main()
