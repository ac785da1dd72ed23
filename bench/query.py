"""SpIDER query latency per stage on a real snapshot: the first stage (dense; hybrid adds BM25, the issue's
mentions and the fusion), expansion Cypher, code fetch, selector (a local fake LLM with a fixed latency, through
the real anthropic SDK), exchange, and end to end; each first stage side by side in one run.

The snapshot must already be indexed with embeddings (`spider index`); ≥ 10k functions for the issue's figure.
Issue texts are real: the repository's own benchmark instances first, then others from ../shared/bench, so
every query is a different prompt (the LLM cache is a fresh temporary directory: no call is served from it).
Each query runs every --first-stages x --edges configuration back to back (interleaved), warm, in one process
that holds the vector store open (its open time is reported apart).

    python bench/query.py --repo apache/dubbo --queries 40 --latency 1.0
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT
from environment import machine, spider_commit  # bench/environment.py
from latency import issue_texts, percentiles  # bench/latency.py
from spider.core.settings import Settings
from spider.indexer.graph import neo4j_local
from spider.indexer.models.embedding import open_embedder
from spider.indexer.vectors.open_store import open_vector_store
from spider.query.expand import edges_label, parse_edges
from spider.query.pipeline import graph_answer
from spider.query.results import Method, Origin
from spider.query.retrieve.dense import snapshot_members
from spider.query.retrieve.first_stage import FIRST_STAGES, first_stage
from spider.query.select.llm import AnswerCache, AnthropicBackend, LLMSelector

from tests.fixtures.llm_server import FakeLLM, Reply

TARGETS = {"expand_p50_ms (C=5, contains:4)": 100.0, "overhead_p50_s (end to end minus selector)": 0.3}
STAGES = ("dense", "bm25", "fuse", "expand", "fetch code", "select", "exchange")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--rev")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--latency", type=float, default=1.0, help="the fake LLM's fixed answer time, seconds")
    parser.add_argument("--edges", nargs="+", default=["contains:4", "invokes:2", "contains:4,invokes:2"])
    parser.add_argument("--first-stages", nargs="+", default=["dense", "hybrid"], choices=[o.value for o in FIRST_STAGES])
    parser.add_argument("-k", type=int, default=20)
    parser.add_argument("-n", type=int, default=500)
    parser.add_argument("-c", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()

    texts = issue_texts(args.repo, args.queries)
    configs = [parse_edges(spec) for spec in args.edges]
    labels = [(Origin(stage), edges, f"{stage} / {edges_label(edges)}") for stage in args.first_stages for edges in configs]
    samples: dict[str, dict[str, list[float]]] = {label: {} for *_, label in labels}
    sizes: dict[str, dict[str, list[int]]] = {label: {} for *_, label in labels}
    started = time.time()
    load_before = os.getloadavg()

    def admit_nothing(seen, attempt) -> Reply:
        return Reply('{"selected": []}', delay=args.latency)

    with neo4j_local.open_graph(Settings.from_env()) as store, FakeLLM(admit_nothing) as fake, \
            tempfile.TemporaryDirectory() as cache_dir:
        os.environ.update({"ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": fake.url})
        selector = LLMSelector(AnthropicBackend("fake-fixed-latency"), AnswerCache(Path(cache_dir)))
        snapshot = store.resolve_snapshot(args.repo, args.rev)
        functions = len(snapshot_members(store, args.repo, snapshot))
        clock = time.perf_counter()
        warm = first_stage(store, args.repo, snapshot, texts[0], Origin.DENSE, args.n)  # model load, apart
        model_load = time.perf_counter() - clock
        embedder = open_embedder(warm.model)
        clock = time.perf_counter()
        vectors = open_vector_store(embedder.name, embedder.dim)  # each search opens the repository's shard
        store_open = time.perf_counter() - clock
        try:
            print(f"{args.repo} @ {snapshot[:12]}: {functions} functions; model {warm.model}; first query "
                  f"(model load included) {model_load:.2f} s; vector store open {store_open:.2f} s; "
                  f"{len(texts)} issues x {len(labels)} configurations")
            for number, text in enumerate(texts, start=1):
                rankings = {}
                for origin in dict.fromkeys(origin for origin, *_ in labels):
                    clock = time.perf_counter()
                    rankings[origin] = first_stage(store, args.repo, snapshot, text, origin, args.n, vectors=vectors)
                    rankings[origin].seconds["first stage"] = time.perf_counter() - clock
                for origin, edges, label in labels:
                    ranking = rankings[origin]
                    clock = time.perf_counter()
                    answer = graph_answer(store, args.repo, snapshot, text, ranking, Method.SPIDER, selector,
                                          args.k, args.n, args.c, edges)
                    wall = time.perf_counter() - clock + ranking.seconds["first stage"]
                    stage = samples[label]
                    for name in STAGES:
                        stage.setdefault(name, []).append(answer.seconds.get(name, 0.0))
                    stage.setdefault("end to end", []).append(wall)
                    stage.setdefault("overhead (end to end - select)", []).append(wall - answer.seconds["select"])
                    for key in ("neighbours", "proposals", "calls"):
                        sizes[label].setdefault(key, []).append(answer.summary[key])
                print(f"  {number}/{len(texts)} done", end="\r", flush=True)
        finally:
            vectors.close()
    print()

    stats = {label: {name: percentiles(values) for name, values in stages.items()} for label, stages in samples.items()}
    size_stats = {label: {k: {"median": statistics.median(v), "max": max(v)} for k, v in s.items()}
                  for label, s in sizes.items()}
    contains = stats.get(f"{args.first_stages[-1]} / contains:4", {})
    checks = {
        "expand_p50_ms (C=5, contains:4)": round(contains["expand"]["p50"] * 1000, 1) if contains else None,
        "overhead_p50_s (end to end minus selector)": max(
            s["overhead (end to end - select)"]["p50"] for s in stats.values()),
    }
    result = {
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "repo": args.repo, "snapshot": snapshot, "functions": functions, "model": warm.model,
        "k": args.k, "n": args.n, "c": args.c, "fake_llm_latency_s": args.latency, "queries": len(texts),
        "first_query_with_model_load_s": round(model_load, 3),
        "vector_store_open_s": round(store_open, 3),
        "stages_seconds": stats, "neighbourhood_sizes": size_stats,
        "targets": TARGETS, "measured": checks,
        "met": {name: checks[name] is not None and checks[name] <= limit for name, limit in TARGETS.items()},
        "wall_seconds": round(time.time() - started, 1),
        "loadavg_start_end": [list(load_before), list(os.getloadavg())],
        "machine": machine(("neo4j", "anthropic", "qdrant-edge-py", "fastembed")), "spider": spider_commit(),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "query.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "query.md").write_text(render(result))
    print(render(result))


def render(result: dict) -> str:
    lines = [
        f"# SpIDER query latency ({result['when']})", "",
        (f"`{result['command']}` on {result['repo']} @ {result['snapshot'][:12]} ({result['functions']} functions), "
        f"model {result['model']}, K={result['k']} N={result['n']} C={result['c']}, {result['queries']} real issue "
        f"texts, selector = anthropic SDK against a local fake Messages API answering in {result['fake_llm_latency_s']} s. "
        f"First query with model load: {result['first_query_with_model_load_s']} s. The vector store is opened once "
        f"({result['vector_store_open_s']} s) and held, as a long-running process would; a `spider-query` process "
        f"pays that once per query. Load average start/end "
        f"{result['loadavg_start_end']}. Machine: {result['machine']['nproc']} cores, {result['machine']['cpu_model']}."),
        "", "| first stage / edges | stage | p50 ms | p95 ms | max ms |", "|---|---|---:|---:|---:|",
    ]
    for label, stages in result["stages_seconds"].items():
        for name, s in stages.items():
            lines.append(f"| {label} | {name} | {s['p50'] * 1000:.1f} | {s['p95'] * 1000:.1f} | {s['max'] * 1000:.1f} |")
    lines += ["", "Neighbourhood sizes (median / max per query): " + "; ".join(
        f"{label}: " + ", ".join(f"{k} {v['median']:g}/{v['max']}" for k, v in sizes.items())
        for label, sizes in result["neighbourhood_sizes"].items()), ""]
    for name, limit in result["targets"].items():
        measured = result["measured"][name]
        lines.append(f"- {name}: {measured} (target <= {limit}): {'met' if result['met'][name] else 'NOT met'}")
    lines.append(f"\nWall time {result['wall_seconds']} s; spider {result['spider']['sha'][:12]}"
                 f"{' + uncommitted changes' if result['spider']['uncommitted_changes'] else ''}.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
