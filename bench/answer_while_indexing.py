"""Answering while indexing, on the default local vector store: `localize` latency with nothing else running, and
while `spider index` of a larger repository runs in another process on the same SPIDER_HOME (parsing, writing,
embedding, building its HNSW index); and a third repository indexed meanwhile. Every query must answer: a failure
("in use by another spider process") is counted, not hidden.

Both repositories are indexed into a fresh home with the default embedding model; the query repository first (its
answers while idle are the reference: the same issue must get the same ranking while the other indexes).

    python bench/answer_while_indexing.py --query-repo PATH --index-repo LARGER_PATH --other-repo SMALL_PATH

Writes bench/results/answer_while_indexing.{json,md}.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from _common import RESULTS
from environment import machine, spider_commit  # bench/environment.py
from latency import issue_texts, percentiles  # bench/latency.py
from spider.core.errors import SpiderError
from spider.core.settings import Settings
from spider.indexer import index_repository, open_stores
from spider.query import localize


def ask(stores, repo: str, text: str) -> tuple[float, list[str] | str]:
    started = time.perf_counter()
    try:
        answer = localize(stores, text, repo=repo, method="der", k=10)
    except SpiderError as error:
        return time.perf_counter() - started, str(error)
    return time.perf_counter() - started, [r.id for r in answer.results]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--query-repo", required=True, help="the repository asked about (indexed first)")
    parser.add_argument("--index-repo", required=True, help="a larger repository, indexed while the queries run")
    parser.add_argument("--other-repo", required=True, help="a small repository, indexed while the larger one is")
    parser.add_argument("--issues", type=int, default=20, help="issue texts asked in turn (default 20)")
    parser.add_argument("--home", help="the SPIDER_HOME to use (default: a fresh temporary one)")
    args = parser.parse_args()
    home = Path(args.home or tempfile.mkdtemp(prefix="spider-bench-home-"))
    env = {**os.environ, "SPIDER_HOME": str(home)}
    env.pop("QDRANT_URL", None)
    settings = Settings.from_env(env)
    texts = issue_texts("psf/requests", args.issues)
    result: dict = {"date": dt.date.today().isoformat(), "machine": machine(), "spider": spider_commit(),
                    "home": "fresh" if not args.home else "given"}
    with open_stores(settings) as stores:
        report = index_repository(stores, args.query_repo, repo="bench/query")
        result["query_repo"] = {"functions": report.nodes.get("Function", 0), "seconds": report.seconds}
        ask(stores, "bench/query", texts[0])  # loads the model: apart from the idle figures
        idle = [ask(stores, "bench/query", text) for text in texts]
        reference = {text: ranking for text, (_, ranking) in zip(texts, idle)}
        started = time.monotonic()
        indexer = subprocess.Popen(["spider", "index", args.index_repo, "--repo",
                                    "bench/large", "--json"], env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
        during, other = [], None
        turn = 0
        while indexer.poll() is None:
            text = texts[turn % len(texts)]
            seconds, ranking = ask(stores, "bench/query", text)
            during.append((time.monotonic() - started, seconds, ranking == reference[text],
                           ranking if isinstance(ranking, str) else None))
            turn += 1
            if other is None and time.monotonic() - started > 20:
                t = time.monotonic()
                done = subprocess.run(["spider", "index", args.other_repo, "--repo",
                                       "bench/other", "--json"], env=env, capture_output=True, text=True)
                other = {"exit": done.returncode, "seconds": round(time.monotonic() - t, 1),
                         "while_the_large_run_ran": indexer.poll() is None,
                         "error": done.stderr.strip().splitlines()[-1:] if done.returncode else []}
        large = json.loads(indexer.stdout.read() or "null")
    result["large_repo"] = {"exit": indexer.returncode, "seconds": round(time.monotonic() - started, 1),
                            "functions": (large or {}).get("nodes", {}).get("Function"),
                            "stage_seconds": (large or {}).get("seconds")}
    result["other_repo"] = other
    result["idle"] = percentiles([s for s, _ in idle])
    result["while_indexing"] = percentiles([s for _, s, _, _ in during]) if during else None
    result["while_indexing"]["same_ranking"] = sum(same for _, _, same, _ in during)
    result["while_indexing"]["failed"] = [error for *_, error in during if error]
    result["p50_ratio"] = round(result["while_indexing"]["p50"] / result["idle"]["p50"], 2)
    (RESULTS / "answer_while_indexing.json").write_text(json.dumps(result, indent=1) + "\n")
    lines = [
        "# Answering while indexing (bench/answer_while_indexing.py)", "",
        f"{result['date']}, spider {result['spider']['sha'][:12]}, {machine_line(result['machine'])}.", "",
        f"- query repository: {result['query_repo']['functions']} functions; large repository indexed meanwhile: "
        f"{result['large_repo']['functions']} functions in {result['large_repo']['seconds']} s (exit "
        f"{result['large_repo']['exit']})",
        f"- `localize` (der, k=10) idle: p50 {result['idle']['p50']} s, p95 {result['idle']['p95']} s "
        f"({result['idle']['n']} issues)",
        f"- while indexing: p50 {result['while_indexing']['p50']} s, p95 {result['while_indexing']['p95']} s, max "
        f"{result['while_indexing']['max']} s ({result['while_indexing']['n']} queries, "
        f"{result['while_indexing']['same_ranking']} with the idle ranking, "
        f"{len(result['while_indexing']['failed'])} failed); p50 ratio {result['p50_ratio']}",
        f"- another repository indexed meanwhile: exit {other and other['exit']}, {other and other['seconds']} s",
    ]
    (RESULTS / "answer_while_indexing.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def machine_line(facts: dict) -> str:
    return f"{facts['nproc']} CPUs ({facts['cpu_model']}), {facts['mem_gb']} GB"


if __name__ == "__main__":
    main()
