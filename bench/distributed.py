"""Distributed indexing throughput: the same repositories indexed through Celery with 1 and with 2 worker
processes over a throwaway redis-server, wall time from the first enqueue to the last job done, and the
speed-up. Rounds alternate the configurations so machine load drifts hit both.

1 process: `spider worker -c 1` on every queue. 2 processes: `spider worker --queues embed -c 1` and
`spider worker --queues parse,write -c 1`, the layout for one machine with the local Qdrant Edge store (one
process at a time may hold it: two embedding processes would only take turns). So 2 overlaps one repository's
parsing and writing with another's embedding.

Every run indexes under fresh repository names (nothing is reused from an earlier run, embeddings included) and
deletes its snapshots afterwards. The repositories are the newest benchmark base_commit of each one named.

    python bench/distributed.py --repos /work/.mirror --repo pallets/flask --repo psf/requests --rounds 1

The other half of issue 6's benchmark, incremental re-indexing of a one-file change, is `bench/incremental.py`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from _common import ROOT
from environment import machine, spider_commit  # bench/environment.py

INSTANCES = ROOT.parent / "shared" / "bench" / "instances.jsonl"
RESULTS = ROOT / "bench" / "results"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def newest_base_commits(repos: list[str]) -> dict[str, str]:
    rows = [json.loads(line) for line in INSTANCES.read_text().splitlines() if line.strip()]
    newest: dict[str, str] = {}
    for row in rows:  # instances are not ordered by date; the highest instance number is the newest issue
        if row["repo"] in repos:
            number = int(row["instance_id"].rsplit("-", 1)[-1])
            if row["repo"] not in newest or number > newest[row["repo"]][0]:
                newest[row["repo"]] = (number, row["base_commit"])
    return {repo: commit for repo, (_, commit) in newest.items()}


def start_redis() -> tuple[subprocess.Popen, str]:
    port = free_port()
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", tempfile.mkdtemp()],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    return server, f"redis://127.0.0.1:{port}/0"


def run_config(processes: int, broker: str, sources: dict[str, tuple[Path, str]], tag: str) -> dict:
    """Start the workers of the layout, enqueue every repository, wait for every job."""
    from spider.indexer.distributed import tasks
    from spider.indexer.graph import jobs
    from spider.indexer.pipeline.delete import delete_snapshot

    log = open(Path(tempfile.gettempdir()) / f"spider-bench-worker-{processes}.log", "w")  # noqa: SIM115 - workers
    layouts = {1: [["parse,write,embed", "all"]], 2: [["embed", "embed"], ["parse,write", "parse"]]}
    workers = [subprocess.Popen(["spider", "worker", "-c", "1", "--queues", queues, "--loglevel", "WARNING",
                                 "--name", f"bench-{name}@%h"], env={**os.environ, "SPIDER_BROKER_URL": broker},
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
               for queues, name in layouts[processes]]
    try:
        time.sleep(3)  # the workers connect before the clock starts
        store = tasks.worker_store()
        started = time.perf_counter()
        ids = {repo: tasks.index_commit(str(git_dir), f"bench/{tag}-{processes}-{repo}", commit)[0]
               for repo, (git_dir, commit) in sources.items()}
        pending = dict(ids)
        while pending:
            time.sleep(0.5)
            for repo, job_id in list(pending.items()):
                (job,) = jobs.list_jobs(store, job_id)
                if job["state"] == "failed":
                    raise SystemExit(f"{repo}: job failed: {job['errors']}")
                if job["state"] == "done":
                    pending.pop(repo)
        wall = time.perf_counter() - started
    finally:
        for worker in workers:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(60)
    per_repo = {}
    for repo, (_, commit) in sources.items():
        name = f"bench/{tag}-{processes}-{repo}"
        state = store.snapshot_state(name, commit)
        stats, embedding = state.stats, state.embedding
        per_repo[repo] = {"files": stats["files_parsed"], "functions": stats["nodes"].get("Function", 0),
                          "embedded": embedding.embedded if embedding else None}
        delete_snapshot(store, name, commit)
    return {"processes": processes, "wall_seconds": round(wall, 2), "repos": per_repo}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repos", type=Path, required=True, help="Directory of git mirrors (OWNER+NAME/repo).")
    parser.add_argument("--repo", action="append", required=True, help="owner/name from the benchmark; repeatable.")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not installed (deploy/quickstart.sh --setup-only installs it)")
    server, broker = start_redis()
    os.environ["SPIDER_BROKER_URL"] = broker  # before indexer.distributed.tasks is imported: the app reads it once
    from spider.query.evaluation.run import find_repository

    commits = newest_base_commits(args.repo)
    sources = {repo: (find_repository(args.repos, repo), commit) for repo, commit in commits.items()}
    tag = dt.datetime.now().strftime("%Y%m%d%H%M%S")
    runs = []
    try:
        for round_number in range(args.rounds):
            order = (1, 2) if round_number % 2 == 0 else (2, 1)
            for processes in order:
                run = run_config(processes, broker, sources, f"{tag}r{round_number}")
                runs.append(run)
                print(f"round {round_number + 1}, {processes} worker process(es): {run['wall_seconds']:.1f} s", flush=True)
    finally:
        server.terminate()
    best = {p: min(r["wall_seconds"] for r in runs if r["processes"] == p) for p in (1, 2)}
    result = {
        "date": dt.date.today().isoformat(), "machine": machine(("celery", "fastembed")), "spider": spider_commit(),
        "repositories": {repo: commit for repo, commit in commits.items()}, "runs": runs,
        "best_wall_seconds": best, "speedup_2_over_1": round(best[1] / best[2], 3),
        "functions": sum(r["functions"] for r in runs[0]["repos"].values()),
    }
    (RESULTS / "distributed.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = ["# Distributed indexing: 1 vs 2 worker processes", "",
             f"{result['date']}, {machine()['nproc']} shared cores; `python bench/distributed.py "
             + " ".join(f"--repo {r}" for r in args.repo) + f" --rounds {args.rounds}`. Each run indexes every "
             "repository under a fresh name (embeddings included: nothing is reused), through Celery over a local "
             "redis-server, wall time from the first enqueue to the last job done. 1 process: one worker on every "
             "queue. 2 processes: one worker on `embed`, one on `parse,write` (the local Qdrant Edge store admits "
             "one process at a time; with two processes on every queue, the embed tasks only take turns at it: "
             "measured 0.39x in a first run of this script).", "",
             "| worker processes | " + " | ".join(f"round {i + 1}" for i in range(args.rounds)) + " | best |",
             "|---:|" + "---:|" * (args.rounds + 1)]
    for processes in (1, 2):
        walls = [f"{r['wall_seconds']:.1f} s" for r in runs if r["processes"] == processes]
        lines.append(f"| {processes} | " + " | ".join(walls) + f" | {best[processes]:.1f} s |")
    lines += ["", f"Speed-up of 2 over 1: **{result['speedup_2_over_1']:.2f}x** on {result['functions']:,} functions in "
              f"{sum(r['files'] for r in runs[0]['repos'].values()):,} files ("
              + ", ".join(f"{repo} {v['functions']:,}" for repo, v in runs[0]["repos"].items()) + ")."]
    (RESULTS / "distributed.md").write_text("\n".join(lines) + "\n")
    print(f"speed-up {result['speedup_2_over_1']:.2f}x; wrote {RESULTS / 'distributed.md'}")


if __name__ == "__main__":
    main()
