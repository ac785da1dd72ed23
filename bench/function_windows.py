"""How much of a function should the dense ranking see? (issues 20 and 22: the first stage)

The default model reads 256 tokens of a function (its id line and the start of its code), and the functions a
fix changes are often longer (the report counts the instances with such a target). spider embeds a long function
again in the windows that follow (`Embedder.function_windows`, at most WINDOWS_PER_FUNCTION) and scores it by its
best window. For every benchmark instance (its snapshot indexed with embeddings, as `spider eval` leaves it) the
dense ranking is computed from the first window alone and from the first 2, 4, … windows up to
WINDOWS_PER_FUNCTION (a branch that raises it measures more), each then fused with BM25 and the issue's mentions
exactly as the hybrid first stage does (test code excluded), scored at K=20.

Every window's score is read from the vector store (the snapshot must be embedded with windows: run
`spider eval` on the same instances first, which embeds what a snapshot lacks); nothing is embedded here but
the issue. Nothing is trained: every figure is out of fold by construction.

    python bench/function_windows.py --bench ../shared/bench --subset dev --subset dev-more
"""

from __future__ import annotations

import datetime as dt
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from environment import machine, spider_commit  # noqa: E402 - bench/environment.py
from fusion import lexical_evidence  # noqa: E402 - bench/fusion.py
from query_windows import K, parse_arguments, rows_per_instance, summary, tables, write_results  # noqa: E402
from spider.indexer.pipeline.index import is_indexed  # noqa: E402
from spider.indexer.vectors.store import HNSW_EF_MIN, WINDOWS_PER_FUNCTION, member_window  # noqa: E402
from spider.query.evaluation.metrics import recall_at  # noqa: E402
from spider.query.retrieve.dense import snapshot_members  # noqa: E402
from spider.query.retrieve.first_stage import fuse_hybrid  # noqa: E402

CAPS = tuple(2 ** i for i in range(WINDOWS_PER_FUNCTION.bit_length()))  # windows per function read: 1, 2, 4, …
VARIANTS = tuple(f"w{cap}" for cap in CAPS)


def window_scores(vectors, query: np.ndarray, repo: str, members) -> dict[str, dict[int, float]]:
    """{member: {window: cosine}} for every point of the members' functions: the engine's nearest points of the
    repo, all of them, each mapped to its function and window (`member_window`)."""
    points = vectors.count(repo)
    rows = vectors._query(vectors._vector(query), repo, points, max(HNSW_EF_MIN, points), payload=False)
    scores: dict[str, dict[int, float]] = {}
    for score, key, _ in rows:
        if (found := member_window(members, key)) is not None:
            (node_id, _), window = found
            scores.setdefault(node_id, {})[window] = score
    return scores


def instance_row(store, embedder, vectors, instance, n: int) -> dict:
    repo, snapshot, issue = instance.repo, instance.base_commit, instance.problem
    if not is_indexed(store.snapshot_state(repo, snapshot), embedder.name):
        raise SystemExit(f"function_windows.py: {instance.id}: {repo} @ {snapshot[:12]} is not embedded with "
                         f"{embedder.name} and its windows: run `spider eval` on the same instances first")
    members = snapshot_members(store, repo, snapshot, True)
    scores = window_scores(vectors, embedder.embed_query(issue), repo, members)
    scored, named, hits = lexical_evidence(store, instance, n)
    sparse = [i for i, _ in scored]

    def recall(ranked: list[str]) -> float:
        return recall_at([hits.get(i, ()) for i in ranked], len(instance.targets), K)

    row = {"instance_id": instance.id, "repo": repo, "language": instance.language, "functions": len(scores),
           "windows": sum(map(len, scores.values())),
           "long_targets": sum(1 for i in hits if len(scores.get(i, ())) > 1), "sr": recall(sparse)}
    for cap in CAPS:
        best = {i: max(s for w, s in by_window.items() if w <= cap) for i, by_window in scores.items()}
        ranked = sorted(best, key=lambda i: (-best[i], i))[:n]
        row[f"der_w{cap}"] = recall(ranked)
        row[f"hybrid_w{cap}"] = recall([i for i, _ in fuse_hybrid(ranked, sparse, named)[1]])
    return row


def vectors_per_function(rows: list[dict]) -> dict[str, float]:
    """Per language, the points a snapshot needs per function with WINDOWS_PER_FUNCTION windows (mean over its
    instances' snapshots): what indexing embeds and stores, against one."""
    return {language: round(statistics.fmean(r["windows"] / r["functions"] for r in rows
                                             if language in ("all", r["language"])), 2)
            for language in ["all", *sorted({r["language"] for r in rows})]}


def report(result: dict) -> str:
    lines = [f"# Reading the whole function: a point per window of its code ({result['when']})", "",
             f"`{result['command']}` at spider {result['spider']['sha'][:7]}, {result['instances']} instances, model "
             f"{result['model']}, test code excluded, N={result['n']}, Recall@{K}; `wN`: a function scored by the "
             "best of its first N windows (`w1`: the first alone, what spider embedded before); p: paired bootstrap "
             "against `w1`. Nothing is trained: out of fold by construction. The third column counts the instances "
             "with a target function longer than one window.", "",
             f"Vectors per function with {WINDOWS_PER_FUNCTION} windows at most (what indexing embeds and stores, "
             "against 1): " + ", ".join(f"{k} {v}" for k, v in result["vectors_per_function"].items())
             + f". Machine: {result['machine']['nproc']} cores, {result['machine']['cpu_model']}.", ""]
    lines += tables(result["groups"], VARIANTS, "a target longer than one window", "first window")
    return "\n".join(lines) + "\n"


def main() -> None:
    args = parse_arguments(__doc__)
    started = time.time()
    embedder, rows = rows_per_instance(
        "function_windows.py", args,
        lambda store, embedder, vectors, instance: instance_row(store, embedder, vectors, instance, args.n))
    result = {"when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]), "model": embedder.name, "n": args.n,
              "instances": len(rows), "vectors_per_function": vectors_per_function(rows),
              "groups": summary(rows, VARIANTS, lambda row: row["long_targets"] > 0), "rows": rows,
              "wall_seconds": round(time.time() - started, 1), "machine": machine(), "spider": spider_commit()}
    write_results(args.out, "function_windows", result, report(result))


if __name__ == "__main__":
    main()
