"""How much of the issue should the dense model read? (issues 20 and 22: the first stage)

The default model reads 256 tokens, and most issues are longer (the dev split's median is ~300-500 tokens; the
stack trace, the failing code and the expected output come after the summary). For every benchmark instance (its
snapshot already indexed with embeddings, as `spider eval` leaves it) the dense ranking is computed from several
readings of the issue, each then fused with BM25 and the issue's mentions exactly as the hybrid first stage does
(test code excluded), and scored at K=20:

- `first`: the first window only (what spider embeds: the model's truncation);
- `mean`: every window (consecutive windows the model reads whole, at most WINDOWS), the vectors averaged;
- `mean_first2`: the same with the first window counted twice (the summary written first);
- `max`: each window searched alone, a function scored by its best cosine;
- `rrf`: each window searched alone, the rankings fused by reciprocal rank.

Nothing here is trained: every figure is out of fold by construction. The windowed readings are not in spider:
`mean` was measured end to end on branch `query-windows` (bench/results/query_windows_end_to_end.md) and lost.

    python bench/query_windows.py --bench ../shared/bench --subset dev --subset dev-more
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from environment import machine, spider_commit  # noqa: E402 - bench/environment.py
from fusion import lexical_evidence  # noqa: E402 - bench/fusion.py
from spider.indexer.errors import SpiderError  # noqa: E402
from spider.indexer.graph import neo4j_local  # noqa: E402
from spider.indexer.pipeline.index import is_indexed  # noqa: E402
from spider.indexer.settings import Settings  # noqa: E402
from spider.indexer.vectors.embedding import open_embedder, resolve_spec  # noqa: E402
from spider.indexer.vectors.store import open_vector_store  # noqa: E402
from spider.query.evaluation.metrics import paired_bootstrap_p, recall_at  # noqa: E402
from spider.query.evaluation.run import load_instances  # noqa: E402
from spider.query.retrieve.dense import snapshot_members  # noqa: E402
from spider.query.retrieve.first_stage import fuse_hybrid  # noqa: E402
from spider.query.retrieve.fusion import reciprocal_rank_fusion  # noqa: E402

K = 20
VARIANTS = ("first", "mean", "mean_first2", "max", "rrf")
WINDOWS = 16  # at most this many windows of an issue are read (~4,000 tokens with the default model)


def unit(vector: np.ndarray) -> np.ndarray:
    return vector / np.linalg.norm(vector)


def counting_tokenizer(embedder):
    """The model's tokenizer without truncation or padding (`Embedder.counting_tokenizer`), or a one-line exit."""
    if embedder.counting_tokenizer is None:
        raise SystemExit(f"query_windows.py: {embedder.name} exposes no tokenizer to cut an issue into windows with")
    return embedder.counting_tokenizer


def issue_windows(embedder, counting, text: str) -> list[str]:
    """The issue as consecutive windows the model reads whole (max_tokens with the query prefix and the special
    tokens), at most WINDOWS of them, cut where `counting` (`counting_tokenizer`) puts the tokens; the first is
    what the model's truncation keeps."""
    offsets = counting.encode(text, add_special_tokens=False).offsets
    size = max(embedder.max_tokens - len(counting.encode(embedder.spec.query_prefix).ids), 1)
    if len(offsets) <= size:
        return [text]
    starts = range(0, min(len(offsets), WINDOWS * size), size)
    return [text[offsets[start][0]:offsets[min(start + size, len(offsets)) - 1][1]] for start in starts]


def embed_windows(embedder, windows: list[str]) -> np.ndarray:
    """The vectors of the windows as queries (each with the model's query prefix), shape (windows, dim)."""
    return np.stack([embedder.embed_query(window) for window in windows])


def dense_variants(embedder, vectors, repo: str, members, issue: str, windows: np.ndarray,
                   n: int) -> dict[str, list[str]]:
    """The dense top-n of each reading of the issue (VARIANTS); `windows`: its windows' vectors."""
    def search(vector: np.ndarray) -> list[tuple[str, float]]:
        return [(hit.node_id, hit.score) for hit in vectors.search(vector, repo, limit=n, members=members)]

    per_window = [search(v) for v in windows]
    doubled = np.ones(len(windows))
    doubled[0] = 2.0
    best: dict[str, float] = {}
    for ranking in per_window:
        for node_id, score in ranking:
            best[node_id] = max(best.get(node_id, -1.0), score)
    scored = {"first": search(embedder.embed_query(issue)), "mean": search(unit(windows.mean(axis=0))),
              "mean_first2": search(unit((windows * doubled[:, None]).sum(axis=0))),
              "max": sorted(best.items(), key=lambda item: (-item[1], item[0]))[:n],
              "rrf": reciprocal_rank_fusion([[i for i, _ in ranking] for ranking in per_window])[:n]}
    return {name: [i for i, _ in ranking] for name, ranking in scored.items()}


def instance_row(store, embedder, counting, vectors, instance, n: int) -> dict:
    repo, snapshot, issue = instance.repo, instance.base_commit, instance.problem
    if not is_indexed(store.snapshot_state(repo, snapshot), embedder.name):
        raise SystemExit(f"query_windows.py: {instance.id}: {repo} @ {snapshot[:12]} is not indexed with "
                         f"{embedder.name}: run `spider eval` on the same instances first")
    clock = time.perf_counter()
    embedder.embed_query(issue)
    first_seconds = time.perf_counter() - clock
    windows = issue_windows(embedder, counting, issue)
    vectors_of_windows = embed_windows(embedder, windows)
    whole_seconds = time.perf_counter() - clock - first_seconds
    dense = dense_variants(embedder, vectors, repo, snapshot_members(store, repo, snapshot, True), issue,
                           vectors_of_windows, n)
    scored, named, hits = lexical_evidence(store, instance, n)
    sparse = [i for i, _ in scored]

    def recall(ranked: list[str]) -> float:
        return recall_at([hits.get(i, ()) for i in ranked], len(instance.targets), K)

    row = {"instance_id": instance.id, "repo": repo, "language": instance.language, "windows": len(windows),
           "sr": recall(sparse), "embed_first_s": round(first_seconds, 4), "embed_whole_s": round(whole_seconds, 4)}
    for name, ranked in dense.items():
        row[f"der_{name}"] = recall(ranked)
        row[f"hybrid_{name}"] = recall([i for i, _ in fuse_hybrid(ranked, sparse, named)[1]])
    return row


def summary(rows: list[dict], variants: tuple[str, ...] = VARIANTS,
            long: Callable[[dict], bool] = lambda row: row["windows"] > 1) -> dict:
    """Per group (all, each language): the mean R@K of each of `variants` (the first is the baseline the others'
    paired p is against, and the one whose DER-solved instances are counted), SR's, the share of instances that
    are `long`, and how many DER-solved instances each hybrid keeps."""
    base = variants[0]
    groups = {}
    solved = {r["instance_id"] for r in rows if r[f"der_{base}"] == 1.0}
    for group in ["all", *sorted({r["language"] for r in rows})]:
        members = [r for r in rows if group in ("all", r["language"])]
        g: dict = {"instances": len(members), "sr": round(statistics.fmean(r["sr"] for r in members), 4),
                   "long_share": round(sum(map(long, members)) / len(members), 3),
                   "der_solved": sum(r["instance_id"] in solved for r in members)}
        for stage in ("der", "hybrid"):
            baseline = [r[f"{stage}_{base}"] for r in members]
            for name in variants:
                scores = [r[f"{stage}_{name}"] for r in members]
                g[f"{stage}_{name}"] = round(statistics.fmean(scores), 4)
                if name != base:
                    g[f"{stage}_{name}_p"] = round(paired_bootstrap_p(scores, baseline), 4)
        for name in variants:
            g[f"hybrid_{name}_kept"] = sum(r[f"hybrid_{name}"] == 1.0 for r in members if r["instance_id"] in solved)
        groups[group] = g
    return groups


def tables(groups: dict, variants: tuple[str, ...], long_label: str, base_label: str) -> list[str]:
    """`summary`'s groups as markdown: DER's and the hybrid's R@K per variant, then the DER-solved kept."""
    base = variants[0]
    lines = []
    for stage, title in (("der", "DER (dense alone)"), ("hybrid", "The hybrid first stage (dense + BM25 + mentions)")):
        lines += [f"## {title}", "", f"| group | instances | {long_label} | SR | " + " | ".join(variants) + " |",
                  "|---|---:|---:|---:|" + "---:|" * len(variants)]
        for group, g in groups.items():
            cells = [f"{g[f'{stage}_{name}']:.3f}" + (f" (p {g[f'{stage}_{name}_p']:.2f})" if name != base else "")
                     for name in variants]
            lines.append(f"| {group} | {g['instances']} | {g['long_share']:.0%} | {g['sr']:.3f} | "
                         + " | ".join(cells) + " |")
        lines.append("")
    lines += [f"Instances DER solves (every target in its top {K}, {base_label}) that the hybrid top {K} still "
              "solves:", "", "| group | DER-solved | " + " | ".join(variants) + " |",
              "|---|---:|" + "---:|" * len(variants)]
    for group, g in groups.items():
        lines.append(f"| {group} | {g['der_solved']} | "
                     + " | ".join(str(g[f"hybrid_{name}_kept"]) for name in variants) + " |")
    return lines


def report(result: dict) -> str:
    lines = [f"# Reading the whole issue: the dense model's windows ({result['when']})", "",
             f"`{result['command']}` at spider {result['spider']['sha'][:7]}, {result['instances']} instances, model "
             f"{result['model']}, test code excluded, N={result['n']}, Recall@{K}; p: paired bootstrap against "
             "`first` (the first window alone, what spider embeds). Nothing is trained: out of fold by "
             "construction. Windows per issue: " + ", ".join(f"{k} {v}" for k, v in result["windows"].items()) + ".",
             "", "Embedding the issue, the first window alone against the whole issue, timed back to back on each "
             "instance (ms): " + "; ".join(f"{reading} p50 {t[50]}, p90 {t[90]}"
                                           for reading, t in result["embed_query_ms"].items())
             + f". Machine: {result['machine']['nproc']} cores, {result['machine']['cpu_model']}.", ""]
    lines += tables(result["groups"], VARIANTS, "longer than one window", "first window")
    return "\n".join(lines) + "\n"


def parse_arguments(doc: str) -> argparse.Namespace:
    """The arguments of a script that reads indexed benchmark instances (this one, function_windows.py)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--subset", action="append", help="a subset of subsets.json; repeatable (default: dev)")
    parser.add_argument("-n", type=int, default=500)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    return parser.parse_args()


def rows_per_instance(script: str, args: argparse.Namespace, row_of: Callable) -> tuple[Any, list[dict]]:
    """The default model's embedder and `row_of(store, embedder, vectors, instance)` of each instance of
    `args`' subsets, with progress; a model that cannot load is a one-line exit naming `script`."""
    instances = load_instances(args.bench, tuple(args.subset or ["dev"]))
    try:
        embedder = open_embedder(resolve_spec().name)
    except SpiderError as error:
        raise SystemExit(f"{script}: {error}") from None
    rows = []
    with neo4j_local.open_graph(Settings.from_env()) as store, \
            open_vector_store(embedder.name, embedder.dim) as vectors:
        for number, instance in enumerate(instances, start=1):
            rows.append(row_of(store, embedder, vectors, instance))
            print(f"  {number}/{len(instances)}", end="\r", flush=True)
    return embedder, rows


def write_results(out: Path, name: str, result: dict, text: str) -> None:
    """`result` as out/name.json and its report `text` as out/name.md, and the report printed."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / f"{name}.md").write_text(text)
    print(text)


def main() -> None:
    args = parse_arguments(__doc__)
    started = time.time()

    def row_of(store, embedder, vectors, instance) -> dict:
        return instance_row(store, embedder, counting_tokenizer(embedder), vectors, instance, args.n)

    embedder, rows = rows_per_instance("query_windows.py", args, row_of)
    counts = [r["windows"] for r in rows]
    result = {"when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]), "model": embedder.name, "n": args.n,
              "instances": len(rows),
              "windows": {"median": statistics.median(counts), "p90": float(np.percentile(counts, 90)),
                          "max": max(counts)},
              "embed_query_ms": {reading: {q: round(1000 * float(np.percentile([r[f"embed_{reading}_s"] for r in rows],
                                                                               q)), 1) for q in (50, 90)}
                                 for reading in ("first", "whole")},
              "groups": summary(rows), "rows": rows, "wall_seconds": round(time.time() - started, 1),
              "machine": machine(), "spider": spider_commit()}
    write_results(args.out, "query_windows", result, report(result))


if __name__ == "__main__":
    main()
