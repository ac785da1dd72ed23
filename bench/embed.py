"""Embedding and query latency: the embed stage vs raw fastembed, Edge vector search, DER and BM25 end to end.

Three phases (`--phases embed,search,der`; each can run alone and is merged into the results file):

  embed   On a real repository (bare git dir + revision) the graph is built with the pipeline's stages
          (open_commit, select_files, parse_all, graph_of); a seeded sample of --sample functions (unique
          content hashes, as embed_snapshot keys them) is embedded three ways, interleaved, --passes times:
            (a) raw:      the Embedder's fastembed `TextEmbedding.embed(texts, batch_size=32)`, texts in the
                          pipeline's order (node id), exactly the strings the pipeline embeds
                          (function_text + cut_text; the tokenizer truncates to max_tokens in both);
            (b) embed_documents: the same texts through `Embedder.embed_documents` (length-sorted batches);
            (c) the whole stage: `embed_snapshot` into a fresh temporary Edge store (missing() lookup,
                chunked embed_documents, inserts, build_index); opening and closing the store timed apart.
          Reported: texts/s (median and best pass), CPU seconds, (c)/(a) and (c)/(b), the split of (c)
          between embedding and store calls, token-length distribution after truncation, and how many texts
          the truncation cut. --full adds one interleaved pass of (a), (b), (c) over every function.
  search  A temporary Edge store with --points points in the searched snapshot of one repository, that
          repository's older versions (not members) and two other repositories. Vectors: real function
          embeddings copied out of an existing Edge shard (--vectors-from, e.g. the dev evaluation's store) with
          --queries real issue texts as queries, else random unit vectors. p50/p95 of `VectorStore.search`
          (repo filter, the snapshot's functions as members) for top-500 (DER's candidate pool) and top-20, before
          `build_index` (exact scan) and after it (HNSW, on the store closed and opened again, as spider-query
          finds it), --rounds times over the queries, with recall against a numpy brute force; reopen time.
  der     Indexes the repository for real (`index_repository`, default model) as `bench/<name>-<time>`, then
          times spider-query's path in process: model load (apart), then per issue text embed_query +
          search(k) + `query.explain.ranked` (Neo4j) for --issues real issues of that repository from
          /work/shared/bench/instances.jsonl, warm, p50/p95; BM25: the first query's build (and save) of the
          index, load from disk, warm `Bm25Index.search` + ranked() on the same issues (interleaved with
          DER); and the wall time of a cold `spider-query` process for each method. At the end the snapshot
          is deleted from Neo4j, the vectors and the BM25 directory, so nothing is left behind.

    python bench/embed.py --git-dir /work/.mirror/sphinx-doc+sphinx/repo \\
        --rev 6cb783c0024a873722952a67ebb9f41771c8eb6d --name sphinx-doc/sphinx --sample 1500 --passes 3
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import ROOT
from environment import machine, spider_commit  # bench/environment.py
from spider.core.records import EmbedStats
from spider.core.schema import Label
from spider.core.settings import Settings
from spider.indexer.graph import neo4j_local
from spider.indexer.graph.store import GraphStore
from spider.indexer.models.embedding import BATCH_SIZE, cut_text, function_text, open_embedder
from spider.indexer.pipeline.index import index_repository
from spider.indexer.pipeline.report import IndexReport
from spider.indexer.pipeline.stages import graph_of, no_progress, parse_all
from spider.indexer.source.walk import open_commit, select_files
from spider.indexer.vectors.edge import EdgeVectorStore
from spider.indexer.vectors.embed_stage import embed_snapshot
from spider.indexer.vectors.open_store import open_vector_store
from spider.indexer.vectors.store import collection_name, members_of

INSTANCES = Path("/work/shared/bench/instances.jsonl")
TARGETS = {
    "embed_pipeline_vs_raw": 0.90,  # (c) texts/s / (a) texts/s
    "search_ms": 10.0,  # p50 and p95, top-20 (DER's k) and top-500 (the candidate pool), >= 50k points
    "der_p50_ms": 250.0,  # warm, query embedding included, model load apart
}


# ---- helpers ------------------------------------------------------------------------------------------------


EMBED_PACKAGES = ("fastembed", "onnxruntime", "tokenizers", "qdrant-edge-py", "bm25s", "neo4j")

def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def stats_ms(seconds: list[float]) -> dict:
    ms = np.asarray(seconds) * 1000
    return {"n": len(ms), "p50": round(float(np.percentile(ms, 50)), 2), "p95": round(float(np.percentile(ms, 95)), 2),
            "mean": round(float(ms.mean()), 2), "min": round(float(ms.min()), 2), "max": round(float(ms.max()), 2)}


def timed(fn, *args, **kwargs):
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def build_graph(git_dir: str, rev: str, name: str):
    seconds = {}
    t = time.perf_counter()
    commit = open_commit(git_dir, rev)
    selection = select_files(commit)
    outcomes = parse_all(commit, selection.files)
    report = IndexReport(repo=name, snapshot=commit.sha, rev=commit.rev)
    graph, _ = graph_of(report, selection, outcomes)
    seconds["graph"] = round(time.perf_counter() - t, 3)
    return commit, graph, seconds


# ---- phase: embed --------------------------------------------------------------------------------------------


def token_stats(embedder, texts: list[str]) -> dict:
    """Token counts after the model's truncation, and before it (`Embedder.counting_tokenizer`)."""
    after = np.asarray(embedder.token_lengths(texts))
    before = np.asarray([len(e.ids) for e in embedder.counting_tokenizer.encode_batch(texts)])
    cut_chars = sum(len(t) for t in texts)
    return {
        "max_tokens": embedder.max_tokens,
        "after_truncation": {q: int(np.percentile(after, int(q[1:]))) for q in ("p50", "p90", "p99")}
        | {"mean": round(float(after.mean()), 1), "max": int(after.max())},
        "before_truncation": {q: int(np.percentile(before, int(q[1:]))) for q in ("p50", "p90", "p99")}
        | {"max": int(before.max())},
        "truncated_share": round(float((before > embedder.max_tokens).mean()), 3),
        "chars_per_text_mean": round(cut_chars / len(texts), 1),
        "padding_waste_input_order": padding_waste(after, sort=False),
        "padding_waste_sorted": padding_waste(after, sort=True),
    }


def padding_waste(lengths: np.ndarray, sort: bool) -> float:
    """Share of the token positions the model computes that are padding, with batches of BATCH_SIZE."""
    seq = np.sort(lengths) if sort else lengths
    padded = sum(int(seq[i:i + BATCH_SIZE].max()) * len(seq[i:i + BATCH_SIZE]) for i in range(0, len(seq), BATCH_SIZE))
    return round(1 - float(seq.sum()) / padded, 3)


class Split:
    """Wall time spent inside the embedder and inside each store call during embed_snapshot."""

    def __init__(self, embedder, store):
        self.seconds: dict[str, float] = {}
        embedder.embed_documents = self.wrap("embed_documents", embedder.embed_documents)
        for name in ("missing", "insert", "build_index"):
            setattr(store, name, self.wrap(name, getattr(store, name)))

    def wrap(self, name, fn):
        def inner(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t
        return inner


def embed_three_ways(embedder, nodes, repo: str, passes: int, label: str) -> dict:
    """Passes interleave (a) raw, (b) embed_documents, (c) embed_snapshot; the start rotates each pass."""
    functions = {n.content_hash: n for n in nodes if n.label == Label.FUNCTION}
    ordered = sorted(functions.values(), key=lambda n: n.id)  # embed_snapshot's order (all missing)
    texts = [function_text(n.id, n.code or "", embedder.max_tokens) for n in ordered]
    prepared = [embedder.spec.doc_prefix + cut_text(t, embedder.max_tokens) for t in texts]  # what (b), (c) feed
    count = len(texts)
    vectors: dict[str, np.ndarray] = {}

    def raw():
        vectors["raw"] = np.stack(list(embedder._model.embed(prepared, batch_size=BATCH_SIZE)))

    def documents():
        vectors["documents"] = embedder.embed_documents(texts)

    splits: list[dict] = []
    store_io: list[dict] = []

    def stage():
        with tempfile.TemporaryDirectory(prefix="spider-bench-edge-") as tmp:
            t = time.perf_counter()
            store = EdgeVectorStore(Path(tmp) / collection_name(embedder.name, embedder.dim), embedder.dim)
            opened = time.perf_counter() - t
            split = Split(embedder, store)
            try:
                (st, wall, cpu) = timed(embed_snapshot, repo, nodes, embedder, store, no_progress)
            finally:
                del embedder.embed_documents  # drop the instance wrapper
            assert st.embedded == count and st.reused == 0, st
            assert store.count(repo) == count
            t = time.perf_counter()
            store.close()
            closed = time.perf_counter() - t
        splits.append({k: round(v, 3) for k, v in split.seconds.items()})
        store_io.append({"open_s": round(opened, 3), "close_s": round(closed, 3)})
        return wall, cpu

    works = {"raw": raw, "documents": documents, "stage": stage}
    runs: dict[str, list[dict]] = {name: [] for name in works}
    names = list(works)
    for p in range(passes):
        order = names[p % 3:] + names[:p % 3]
        for name in order:
            la = loadavg()
            if name == "stage":
                gc.collect()
                wall, cpu = stage()
            else:
                _, wall, cpu = timed(works[name])
            runs[name].append({"pass": p, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "loadavg": la})
            print(f"  {label} pass {p} {name}: {count / wall:.1f} texts/s ({wall:.1f} s, load {la[0]})",
                  file=sys.stderr, flush=True)

    def summary(name):
        walls = [r["wall_s"] for r in runs[name]]
        cpus = [r["cpu_s"] for r in runs[name]]
        return {"texts_per_s_median": round(count / float(np.median(walls)), 2),
                "texts_per_s_best": round(count / min(walls), 2),
                "cpu_s_median": round(float(np.median(cpus)), 2), "passes": runs[name]}

    out = {"texts": count, "passes": passes, "raw": summary("raw"), "embed_documents": summary("documents"),
           "embed_snapshot": summary("stage"), "embed_snapshot_split": splits, "edge_open_close": store_io}
    # per-pass ratios (same pass = nearest in time), then their median
    ratios_a = [r_a["wall_s"] / r_c["wall_s"] for r_a, r_c in zip(runs["raw"], runs["stage"])]
    ratios_b = [r_b["wall_s"] / r_c["wall_s"] for r_b, r_c in zip(runs["documents"], runs["stage"])]
    ratio_docs = [r_a["wall_s"] / r_b["wall_s"] for r_a, r_b in zip(runs["raw"], runs["documents"])]
    out["ratio_stage_vs_raw"] = {"median_of_passes": round(float(np.median(ratios_a)), 3),
                                 "best_vs_best": round(min(r["wall_s"] for r in runs["raw"])
                                                       / min(r["wall_s"] for r in runs["stage"]), 3),
                                 "per_pass": [round(x, 3) for x in ratios_a]}
    out["ratio_stage_vs_documents"] = {"median_of_passes": round(float(np.median(ratios_b)), 3),
                                       "per_pass": [round(x, 3) for x in ratios_b]}
    out["ratio_documents_vs_raw"] = {"median_of_passes": round(float(np.median(ratio_docs)), 3),
                                     "per_pass": [round(x, 3) for x in ratio_docs]}
    cpu_a, cpu_c = out["raw"]["cpu_s_median"], out["embed_snapshot"]["cpu_s_median"]
    out["ratio_stage_vs_raw_cpu"] = round(cpu_a / cpu_c, 3) if cpu_c else None
    out["ratio_stage_vs_documents_cpu"] = round(out["embed_documents"]["cpu_s_median"] / cpu_c, 3) if cpu_c else None
    diff = np.abs(vectors["raw"] - vectors["documents"]).max()
    out["max_abs_diff_raw_vs_documents"] = float(diff)
    out["token_lengths"] = token_stats(embedder, prepared)
    t = time.perf_counter()
    embedder.token_lengths(prepared)
    out["length_sort_tokenize_s"] = round(time.perf_counter() - t, 3)
    return out


def phase_embed(args) -> dict:
    result: dict = {"loadavg_start": loadavg()}
    commit, graph, seconds = build_graph(args.git_dir, args.rev, args.name)
    functions = {n.content_hash: n for n in graph.nodes if n.label == Label.FUNCTION}
    everything = sorted(functions.values(), key=lambda n: n.id)
    rng = random.Random(args.seed)
    sample = rng.sample(everything, min(args.sample, len(everything)))
    t = time.perf_counter()
    embedder = open_embedder()
    result["model_load_s"] = round(time.perf_counter() - t, 3)
    result.update({"repo": args.name, "commit": commit.sha, "graph_s": seconds["graph"], "functions": len(everything),
                   "sample": len(sample), "seed": args.seed, "model": embedder.name, "dim": embedder.dim,
                   "threads": embedder.threads, "batch_size": BATCH_SIZE})
    embedder.embed_documents([function_text(n.id, n.code or "") for n in sample[:BATCH_SIZE]])  # warm ORT
    repo = f"bench/{args.name.replace('/', '-')}-embed"
    result["sampled"] = embed_three_ways(embedder, sample, repo, args.passes, "sample")
    if args.full:
        result["full"] = embed_three_ways(embedder, everything, repo, 1, "full")
    result["loadavg_end"] = loadavg()
    return result


# ---- phase: search -------------------------------------------------------------------------------------------


def search_vectors(args, rng) -> tuple[np.ndarray, np.ndarray, str]:
    """(points, queries, kind): real function embeddings read out of an existing Edge shard (--vectors-from) with
    real issue texts embedded as queries, or random unit vectors (HNSW recall means nothing on those)."""
    needed = args.points + args.points // 6 + 2 * (args.points // 3)
    if not args.vectors_from:
        v = rng.standard_normal((needed + args.queries, 384)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        return v[:needed], v[needed:], "random unit vectors"
    import qdrant_edge as E

    embedder = open_embedder()
    shard = E.EdgeShard.load(args.vectors_from, E.EdgeConfig(
        vectors=E.EdgeVectorParams(size=embedder.dim, distance=E.Distance.Cosine)))
    rows, offset = [], None
    try:
        while True:
            records, offset = shard.scroll(E.ScrollRequest(offset=offset, limit=4096, with_payload=False,
                                                           with_vector=True))
            rows.extend(r.vector for r in records)
            if offset is None:
                break
    finally:
        shard.close()
    if len(rows) < needed:
        raise SystemExit(f"{args.vectors_from} holds {len(rows):,} vectors; the layout needs {needed:,}")
    points = np.asarray(rows, dtype=np.float32)[rng.permutation(len(rows))[:needed]]
    texts = [json.loads(line)["problem_statement"] for line in INSTANCES.read_text().splitlines() if line.strip()]
    texts = [texts[i] for i in rng.permutation(len(texts))[:args.queries]]
    queries = np.stack([embedder.embed_query(t) for t in texts])
    return points, queries, f"real {embedder.name} function embeddings from {args.vectors_from}, real issue texts as queries"


def phase_search(args) -> dict:
    """One searched snapshot of --points points in a repository that also holds older versions (not members),
    next to two other repositories. `search` with the snapshot's members (its functions by point key, as
    spider-query reads them from the snapshot's cache) timed before `build_index` (every segment scanned exactly)
    and after it (HNSW, on the store opened again), on the same queries; recall against a numpy brute force over
    the members."""
    rng = np.random.default_rng(args.seed)
    result: dict = {"loadavg_start": loadavg()}
    t = time.perf_counter()
    vectors, queries, kind = search_vectors(args, rng)
    result.update(source=kind, load_vectors_s=round(time.perf_counter() - t, 1), dim=int(vectors.shape[1]),
                  queries=len(queries))
    target = "bench/search-main"
    layout = [(target, args.points, True), (target, args.points // 6, False)]
    layout += [(f"bench/search-other-{r}", args.points // 3, False) for r in range(2)]
    tmp = Path(tempfile.mkdtemp(prefix="spider-bench-edge-search-"))
    directory = tmp / collection_name("bench-search", vectors.shape[1])
    member_functions: list[tuple[str, str]] = []
    start = 0
    try:
        store = EdgeVectorStore(directory, vectors.shape[1])
        t = time.perf_counter()
        for n, (repo, count, searched) in enumerate(layout):
            block = []
            for i in range(start, start + count):
                h = f"{n}-{i:07d}"
                path = f"pkg{i % 40}/module{i % 700}.py"
                node_id = f"{path}:Class{i % 97}.method_{i}"
                block.append((h, vectors[i], {"node_id": node_id, "path": path, "language": "python",
                                              "kind": "method"}))
                if searched:
                    member_functions.append((node_id, h))
            store.insert(repo, block)
            start += count
        result["insert_s"] = round(time.perf_counter() - t, 2)
        result["points_total"] = store.count()
        result["points_in_repo"] = store.count(target)
        members = members_of(target, member_functions)
        result["points_in_searched_snapshot"] = len(members)
        member_vectors = vectors[: args.points]

        def exact_top(q, k):
            scores = member_vectors @ (q / np.linalg.norm(q))
            return set(np.argsort(-scores)[:k].tolist())

        def timed_searches(label: str, store: EdgeVectorStore) -> None:
            for q in queries[:10]:  # warm up
                store.search(q, target, 500, members)
            result[f"loadavg_during_{label}"] = loadavg()
            for limit in (500, 20):
                lat, recall = [], []
                for _ in range(args.rounds):
                    for q in queries:
                        t = time.perf_counter()
                        hits = store.search(q, target, limit, members)
                        lat.append(time.perf_counter() - t)
                        got = {int(h.content_hash.split("-")[1]) for h in hits}
                        recall.append(len(got & exact_top(q, limit)) / limit)
                result.setdefault("search_ms", {})[f"{label}_top{limit}"] = stats_ms(lat)
                result.setdefault("recall", {})[f"{label}_top{limit}"] = {
                    "mean": round(float(np.mean(recall)), 4), "min": round(float(np.min(recall)), 4)}

        timed_searches("exact", store)
        t = time.perf_counter()
        store.build_index(target)
        result["build_index_s"] = round(time.perf_counter() - t, 1)
        with store._holding(target) as shard:
            result["indexed_vectors"] = shard.info().indexed_vectors_count
        t = time.perf_counter()
        store.close()
        result["close_s"] = round(time.perf_counter() - t, 3)
        reopen = []
        for _ in range(3):
            t = time.perf_counter()
            EdgeVectorStore(directory, vectors.shape[1]).close()
            reopen.append(time.perf_counter() - t)
        result["reopen_ms"] = stats_ms(reopen)
        # Searched as spider-query searches: a store indexed earlier, opened again (not the writer's handle).
        with EdgeVectorStore(directory, vectors.shape[1]) as reopened:
            timed_searches("hnsw", reopened)
        result["disk_mb"] = round(sum(f.stat().st_size for f in directory.rglob("*") if f.is_file()) / 1e6, 1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result["loadavg_end"] = loadavg()
    return result


# ---- phase: der ----------------------------------------------------------------------------------------------


def issues_of(repo: str, n: int) -> list[dict]:
    rows = [json.loads(line) for line in INSTANCES.read_text().splitlines() if line.strip()]
    rows = sorted((r for r in rows if r["repo"] == repo), key=lambda r: r["instance_id"])
    return [{"instance_id": r["instance_id"], "text": r["problem_statement"]} for r in rows[:n]]


def cold_command(repo: str, method: str, issue_file: str) -> tuple[float, dict]:
    exe = shutil.which("spider-query")
    real = Path(sys.executable).with_name("spider-query")  # skip pyenv's shim, which adds its own start-up
    command = [str(real) if real.exists() else exe, "--repo", repo, "--method", method, "--issue-file", issue_file, "--json"]
    t = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed: {done.stderr[-2000:]}")
    return wall, json.loads(done.stdout)["seconds"]


def phase_der(args) -> dict:
    from spider.query.explain import ranked
    from spider.query.results import Origin
    from spider.query.retrieve.bm25 import Bm25Index, snapshot_index
    from spider.query.retrieve.dense import snapshot_members

    result: dict = {"loadavg_start": loadavg(), "k": args.k}
    issues = issues_of(args.name, args.issues)
    result["issues"] = [i["instance_id"] for i in issues]
    repo = f"bench/{args.name.split('/')[-1]}-{dt.datetime.now().strftime('%Y%m%dT%H%M%S')}"
    result["bench_repo"] = repo
    store = neo4j_local.open_graph(Settings.from_env())
    snapshot = None
    embedding = None
    try:
        print(f"  indexing {args.name} as {repo} (embeds every function) …", file=sys.stderr, flush=True)
        t = time.perf_counter()
        report = index_repository(store, args.git_dir, repo=repo, rev=args.rev)
        result["index_s"] = round(time.perf_counter() - t, 2)
        snapshot, embedding = report.snapshot, report.embedding
        result["index_report"] = {"seconds": report.seconds, "embedding": report.stats()["embedding"],
                                  "nodes": dict(report.nodes)}
        result["index_embed_texts_per_s"] = round(embedding.embedded / report.seconds["embed"], 2)
        result["loadavg_after_index"] = loadavg()

        loads = []
        for _ in range(3):
            t = time.perf_counter()
            embedder = open_embedder(embedding.model)
            loads.append(time.perf_counter() - t)
        result["model_load_in_process_s"] = [round(x, 3) for x in loads]

        # BM25: the first query builds the index (from Neo4j) and saves it
        directory = store.snapshot_cache(repo, snapshot) / "bm25"
        assert not directory.exists()
        t = time.perf_counter()
        index = snapshot_index(store, repo, snapshot)
        first_build = time.perf_counter() - t
        t = time.perf_counter()
        ranked(store, repo, snapshot, index.search(issues[0]["text"], args.k), Origin.BM25)
        result["bm25_first_query"] = {"build_and_save_s": round(first_build, 3),
                                      "search_and_ranked_s": round(time.perf_counter() - t, 3),
                                      "functions": len(index.node_ids)}
        t = time.perf_counter()
        ids, codes = store.function_texts(repo, snapshot)
        fetch = time.perf_counter() - t
        t = time.perf_counter()
        Bm25Index.build(ids, [function_text(i, c) for i, c in zip(ids, codes)])
        build = time.perf_counter() - t
        loads = []
        for _ in range(3):
            t = time.perf_counter()
            Bm25Index.load(directory)
            loads.append(time.perf_counter() - t)
        result["bm25_build_split"] = {"function_texts_from_neo4j_s": round(fetch, 3), "tokenize_and_index_s": round(build, 3),
                                      "load_from_disk_s_median": round(float(np.median(loads)), 3)}

        t = time.perf_counter()
        vectors = open_vector_store(embedder.name, embedder.dim)
        result["vector_store_open_s"] = round(time.perf_counter() - t, 3)
        try:
            result["vector_store_points_total"] = vectors.count()
            result["vector_store_points_in_repo"] = vectors.count(repo)
            members = snapshot_members(store, repo, snapshot)
            for issue in issues[:3]:  # warm up
                vectors.search(embedder.embed_query(issue["text"]), repo, args.k, members)
                ranked(store, repo, snapshot, index.search(issue["text"], args.k), Origin.BM25)
            parts = {key: [] for key in ("embed_query", "search", "ranked", "der_total", "search_pool500",
                                         "ranked_pool500", "der_pool500_total", "bm25_search", "bm25_ranked",
                                         "bm25_total")}
            result["loadavg_during_queries"] = loadavg()
            for _ in range(args.rounds):
                for issue in issues:
                    text = issue["text"]
                    t0 = time.perf_counter()
                    query = embedder.embed_query(text)
                    t1 = time.perf_counter()
                    hits = vectors.search(query, repo, args.k, snapshot_members(store, repo, snapshot))
                    t2 = time.perf_counter()
                    rows = ranked(store, repo, snapshot, [(h.node_id, h.score) for h in hits], Origin.DENSE)
                    t3 = time.perf_counter()
                    assert len(rows) == args.k and all(r.path for r in rows)
                    parts["embed_query"].append(t1 - t0)
                    parts["search"].append(t2 - t1)
                    parts["ranked"].append(t3 - t2)
                    parts["der_total"].append(t3 - t0)
                    # the DER candidate pool (N = 500), same query vector
                    t4 = time.perf_counter()
                    pool = vectors.search(query, repo, 500, snapshot_members(store, repo, snapshot))
                    t5 = time.perf_counter()
                    ranked(store, repo, snapshot, [(h.node_id, h.score) for h in pool], Origin.DENSE)
                    t6 = time.perf_counter()
                    parts["search_pool500"].append(t5 - t4)
                    parts["ranked_pool500"].append(t6 - t5)
                    parts["der_pool500_total"].append((t1 - t0) + (t6 - t4))
                    # BM25
                    t7 = time.perf_counter()
                    scored = index.search(text, args.k)
                    t8 = time.perf_counter()
                    ranked(store, repo, snapshot, scored, Origin.BM25)
                    t9 = time.perf_counter()
                    parts["bm25_search"].append(t8 - t7)
                    parts["bm25_ranked"].append(t9 - t8)
                    parts["bm25_total"].append(t9 - t7)
            result["rounds"] = args.rounds
            result["latency_ms"] = {k: stats_ms(v) for k, v in parts.items()}
        finally:
            vectors.close()  # the Edge shard is single-process: release it for the spider-query runs

        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(issues[0]["text"])
            issue_file = f.name
        try:
            cold = {"der": [], "bm25": []}
            inner = {"der": [], "bm25": []}
            for _ in range(args.cold_runs):
                for method in ("der", "bm25"):
                    wall, seconds = cold_command(repo, method, issue_file)
                    cold[method].append(round(wall, 3))
                    inner[method].append(seconds)
            result["cold_process"] = {m: {"wall_s": cold[m], "wall_s_median": round(float(np.median(cold[m])), 3),
                                          "reported_seconds": inner[m]} for m in cold}
        finally:
            os.unlink(issue_file)
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", "import spider.cli.ask"], cwd=ROOT, capture_output=True,
                             check=False)
        result["python_import_query_cli_s"] = round(time.perf_counter() - t, 3) if out.returncode == 0 else None
    finally:
        result["cleanup"] = cleanup(store, repo, snapshot or open_commit(args.git_dir, args.rev).sha, embedding)
        store.close()
    result["loadavg_end"] = loadavg()
    return result


def cleanup(store: GraphStore, repo: str, snapshot: str, embedding: EmbedStats | None) -> dict:
    """Delete the bench snapshot as `spider snapshots delete` does, then check nothing of it is left."""
    from spider.indexer.models.embedding import DEFAULT_MODEL
    from spider.indexer.models.model_build import DIM
    from spider.indexer.pipeline.delete import delete_snapshot

    nodes, vectors_deleted = delete_snapshot(store, repo, snapshot)
    out: dict = {"graph_nodes_deleted": nodes, "vectors_deleted": vectors_deleted}
    model, dim = (embedding.model, embedding.dim) if embedding else (DEFAULT_MODEL, DIM)
    with open_vector_store(model, dim) as vectors:
        out["vectors_left_in_repo"] = vectors.count(repo)
    out["snapshot_left"] = store.snapshot_state(repo, snapshot) is not None
    parent = store.snapshot_cache(repo, snapshot).parent
    if parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
    out["cache_dir_left"] = store.snapshot_cache(repo, snapshot).exists()
    return out


# ---- report --------------------------------------------------------------------------------------------------


def verdicts(doc: dict) -> dict:
    v = {}
    e = doc.get("embed", {}).get("sampled")
    if e:
        r = e["ratio_stage_vs_raw"]["median_of_passes"]
        v["embed stage ≥ 90% of raw fastembed"] = {"value": r, "met": r >= TARGETS["embed_pipeline_vs_raw"]}
    s = doc.get("search")
    if s:
        for k in (20, 500):
            for stat in ("p50", "p95"):
                ms = s["search_ms"][f"hnsw_top{k}"][stat]
                v[f"Edge search top-{k} {stat} ≤ 10 ms (≥ 50k points)"] = {"value": ms, "met": ms <= TARGETS["search_ms"]}
    d = doc.get("der")
    if d and "latency_ms" in d:
        p50 = d["latency_ms"]["der_total"]["p50"]
        v["DER warm p50 ≤ 250 ms"] = {"value": p50, "met": p50 <= TARGETS["der_p50_ms"]}
    return v


def markdown(doc: dict) -> str:
    m, out = doc["machine"], []
    out.append("# Embedding and query benchmark (bench/embed.py)\n")
    out.append(f"Date {doc['date']}, spider {doc['spider']['sha'][:12]}"
               + (f" (+ uncommitted: {', '.join(doc['spider']['uncommitted_changes'])})"
                  if doc["spider"]["uncommitted_changes"] else "") + ".")
    out.append(f"Machine: {m['nproc']} CPU ({m['cpu_model']}), {m['mem_gb']} GB, Python {m['python']}; fastembed "
               f"{m['fastembed']}, onnxruntime {m['onnxruntime']}, qdrant-edge-py {m['qdrant-edge-py']}, bm25s {m['bm25s']}. "
               "Wall-clock timings on a shared machine: compare only numbers from the same run; load averages "
               "(1/5/15 min) are recorded per phase.\n")
    out.append("## Targets\n")
    out.append("| target | value | met |\n|---|---|---|")
    for name, v in verdicts(doc).items():
        out.append(f"| {name} | {v['value']} | {'yes' if v['met'] else '**no**'} |")
    out.append("")
    e = doc.get("embed")
    if e:
        out.append(f"## Embed step: {e['repo']} @ {e['commit'][:12]}\n")
        out.append(f"Model {e['model']} ({e['dim']}-d), ONNX threads {e['threads']}, batch {e['batch_size']}. "
                   f"{e['functions']} functions in the graph (graph built in {e['graph_s']} s). Load average "
                   f"start/end {e['loadavg_start']} / {e['loadavg_end']}.\n")
        for key, title in (("sampled", f"seeded sample of {e['sample']} (seed {e['seed']})"), ("full", "every function")):
            r = e.get(key)
            if not r:
                continue
            out.append(f"### {title}: {r['texts']} texts, {r['passes']} interleaved pass(es)\n")
            out.append("| way | texts/s (median) | texts/s (best) | CPU s (median) |\n|---|---|---|---|")
            for way, label in (("raw", "(a) raw fastembed `TextEmbedding.embed`, input order"),
                               ("embed_documents", "(b) `Embedder.embed_documents` (length-sorted)"),
                               ("embed_snapshot", "(c) `embed_snapshot` into a fresh Edge store")):
                out.append(f"| {label} | {r[way]['texts_per_s_median']} | {r[way]['texts_per_s_best']} | "
                           f"{r[way]['cpu_s_median']} |")
            out.append("")
            out.append(f"- (c)/(a) = **{r['ratio_stage_vs_raw']['median_of_passes']:.0%}** (median of per-pass ratios "
                       f"{r['ratio_stage_vs_raw']['per_pass']}; best/best {r['ratio_stage_vs_raw']['best_vs_best']:.0%}; "
                       f"CPU-time {r['ratio_stage_vs_raw_cpu']:.0%}); (c)/(b) = {r['ratio_stage_vs_documents']['median_of_passes']:.0%}; "
                       f"(b)/(a) = {r['ratio_documents_vs_raw']['median_of_passes']:.0%}; (c)/(b) in CPU time "
                       f"{r['embed_documents']['cpu_s_median'] / r['embed_snapshot']['cpu_s_median']:.0%}")
            out.append(f"- split of (c) per pass (s): {r['embed_snapshot_split']}; Edge open/close: {r['edge_open_close']}")
            t = r["token_lengths"]
            out.append(f"- tokens after truncation to {t['max_tokens']}: {t['after_truncation']}; before: "
                       f"{t['before_truncation']}; truncated: {t['truncated_share']:.0%} of texts; "
                       f"padding share in batches of {e['batch_size']}: input order {t['padding_waste_input_order']:.0%}, "
                       f"length-sorted {t['padding_waste_sorted']:.0%}; tokenizing once for the sort: "
                       f"{r['length_sort_tokenize_s']} s")
            out.append(f"- max |raw − embed_documents| over all vector components: {r['max_abs_diff_raw_vs_documents']:.2e}")
            out.append("- passes (wall s, cores used = CPU s / wall s, 1-min load): "
                       + "; ".join(f"{way} p{p['pass']} {p['wall_s']} s ×{p['cpu_s'] / p['wall_s']:.1f} (load {p['loadavg'][0]})"
                                                 for way in ("raw", "embed_documents", "embed_snapshot")
                                                 for p in r[way]["passes"]))
            out.append("")
    s = doc.get("search")
    if s:
        out.append("## Vector search: Qdrant Edge, repo filter + snapshot membership\n")
        out.append(f"{s['points_total']:,} points of dim {s['dim']} ({s['source']}; {s['queries']} queries); the searched "
                   f"snapshot holds {s['points_in_searched_snapshot']:,} points, its repository {s['points_in_repo']:,} "
                   f"(the rest are older versions). Insert {s['insert_s']} s, `build_index` (HNSW) {s['build_index_s']} s "
                   f"({s['indexed_vectors']:,} vectors indexed), close {s['close_s']} s, on disk {s['disk_mb']} MB. "
                   f"Load average start / exact / HNSW / end {s['loadavg_start']} / {s['loadavg_during_exact']} / "
                   f"{s['loadavg_during_hnsw']} / {s['loadavg_end']}.\n")
        out.append("| `search` | n | p50 ms | p95 ms | mean ms | max ms | recall mean | recall min |\n"
                   "|---|---|---|---|---|---|---|---|")
        for key, label in (("exact_top500", "top-500, before build_index (exact)"),
                           ("exact_top20", "top-20, before build_index (exact)"),
                           ("hnsw_top500", "**top-500, HNSW**"), ("hnsw_top20", "**top-20, HNSW**")):
            q, r = s["search_ms"][key], s["recall"][key]
            out.append(f"| {label} | {q['n']} | {q['p50']} | {q['p95']} | {q['mean']} | {q['max']} | {r['mean']} | "
                       f"{r['min']} |")
        out.append(f"\nReopen (EdgeVectorStore(dir) on the existing shard): p50 {s['reopen_ms']['p50']} ms, "
                   f"max {s['reopen_ms']['max']} ms.\n")
    d = doc.get("der")
    if d:
        out.append(f"## DER and BM25 end to end: {d['bench_repo']}\n")
        rep = d["index_report"]
        out.append(f"Indexed for real with `index_repository` (default model) in {d['index_s']} s: stage seconds "
                   f"{rep['seconds']}; embedding {rep['embedding']} = **{d['index_embed_texts_per_s']} texts/s** for the "
                   f"whole embed stage over every function. Load average after indexing {d['loadavg_after_index']}, "
                   f"during the queries {d.get('loadavg_during_queries')}, at the end {d['loadavg_end']}.\n")
        out.append(f"Model load in process (3 loads, fastembed already imported): {d['model_load_in_process_s']} s. "
                   f"Vector store open {d['vector_store_open_s']} s ({d['vector_store_points_total']:,} points, "
                   f"{d['vector_store_points_in_repo']:,} in this repository).\n")
        if "latency_ms" in d:
            out.append(f"{len(d['issues'])} sphinx issues ({d['issues'][0]} …), {d['rounds']} warm rounds, k = {d['k']}, "
                       "interleaved per issue:\n")
            out.append("| step | n | p50 ms | p95 ms | mean ms | max ms |\n|---|---|---|---|---|---|")
            for key, label in (("embed_query", "embed_query"), ("search", f"search top-{d['k']}"),
                               ("ranked", "ranked() (Neo4j)"), ("der_total", "**DER total**"),
                               ("search_pool500", "search top-500"), ("ranked_pool500", "ranked() 500 ids"),
                               ("der_pool500_total", "DER total with N = 500"),
                               ("bm25_search", "Bm25Index.search"), ("bm25_ranked", "ranked() (Neo4j)"),
                               ("bm25_total", "**BM25 total**")):
                q = d["latency_ms"][key]
                out.append(f"| {label} | {q['n']} | {q['p50']} | {q['p95']} | {q['mean']} | {q['max']} |")
            out.append("")
        b = d["bm25_first_query"]
        out.append(f"BM25 first query: build + save {b['build_and_save_s']} s ({b['functions']} functions; split "
                   f"{d['bm25_build_split']}), then search + ranked {b['search_and_ranked_s']} s.\n")
        c = d.get("cold_process")
        if c:
            out.append("Cold `spider-query --method M --json` processes (imports + Neo4j connect + model load + query), "
                       "alternated: " + "; ".join(f"{m} wall {v['wall_s']} s (median {v['wall_s_median']} s), inner "
                                                  f"{v['reported_seconds'][0]}" for m, v in c.items())
                       + f". `python -c 'import spider.cli.ask'` alone: {d.get('python_import_query_cli_s')} s.\n")
        out.append(f"Cleanup: {d['cleanup']}.\n")
    if doc.get("analysis"):
        out.append("## Analysis\n")
        out.append(doc["analysis"])
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--git-dir", default="/work/.mirror/sphinx-doc+sphinx/repo")
    ap.add_argument("--rev", default="6cb783c0024a873722952a67ebb9f41771c8eb6d")
    ap.add_argument("--name", default="sphinx-doc/sphinx", help="owner/name (selects the issues, names the bench repo)")
    ap.add_argument("--phases", default="embed,search,der")
    ap.add_argument("--sample", type=int, default=1500, help="functions in the embed comparison")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--passes", type=int, default=3, help="interleaved passes of (a), (b), (c)")
    ap.add_argument("--full", action="store_true", help="also one interleaved pass over every function")
    ap.add_argument("--points", type=int, default=60_000, help="points in the searched snapshot")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--vectors-from", help="an Edge shard directory of real function embeddings for the search "
                                           "phase (e.g. ~/.spider/vectors/spider-all-minilm-l6-v2-384)")
    ap.add_argument("--issues", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3, help="warm rounds over the issues (der) and queries (search)")
    ap.add_argument("-k", type=int, default=20, help="spider-query's default k")
    ap.add_argument("--cold-runs", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "embed"))
    ap.add_argument("--fresh", action="store_true", help="do not merge into the existing results file")
    ap.add_argument("--analysis", help="Markdown file appended as the analysis")
    ap.add_argument("--render-only", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    path = out.with_suffix(".json")
    doc = json.loads(path.read_text()) if path.exists() and not args.fresh else {}
    if not args.render_only:
        phases = [p.strip() for p in args.phases.split(",") if p.strip()]
        if "der" in phases:
            neo4j_local.graph_settings(Settings.from_env())  # start the local server before timing anything
        for phase in phases:
            print(f"bench: {phase} …", file=sys.stderr, flush=True)
            doc[phase] = {"embed": phase_embed, "search": phase_search, "der": phase_der}[phase](args)
            doc[phase]["command"] = " ".join(["python", "bench/embed.py", *sys.argv[1:]])
            doc[phase]["date"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            doc.update(date=doc[phase]["date"], spider=spider_commit(), machine=machine(EMBED_PACKAGES))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(doc, indent=2) + "\n")  # after every phase: a later failure keeps it
    if args.analysis:
        doc["analysis"] = Path(args.analysis).read_text()
    doc["targets"] = verdicts(doc)
    path.write_text(json.dumps(doc, indent=2) + "\n")
    out.with_suffix(".md").write_text(markdown(doc))
    print(json.dumps(doc["targets"], indent=2))
    print(f"wrote {path} and {out.with_suffix('.md')}", file=sys.stderr)


if __name__ == "__main__":
    main()
