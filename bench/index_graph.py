"""Indexing throughput: raw tree-sitter vs parse+extract vs the whole `spider index` pipeline, on real repos.

For each run (a git dir, a revision, a short name) one fresh Python process measures, on the files
`select_files` picks:

  (a) raw tree-sitter: all selected blobs read into memory first, then only `parser.parse(bytes)` over every
      file with the grammar its extension maps to (single process, best of --passes); build manifests and the
      files parse_file skips before extracting (generated, minified, binary) are left out of (a) and (b);
  (b) parse+extract: `indexer.parse.parse_file.parse_file(path, bytes)` over the same in-memory bytes (tree-sitter plus
      our extractor, single process, best of --passes); the headline figure is b's MB/s / a's MB/s;
  (c) the pipeline as `spider index` runs it, each stage timed: open_commit, select_files, parse_all (process
      pool of os.cpu_count() workers, blobs read from git inside), graph_of (build + resolve), write_graph
      (Neo4j); files/s, MB/s, nodes+relationships written per second, each stage's share of the total;
  (d) peak RSS (ru_maxrss) of the run's process after the pipeline and at the end, and of its children
      (the parse pool's workers, git).

The pipeline writes under a fresh repo name `bench/<name>-<timestamp>` and deletes that snapshot afterwards, so
the database is left as found. Several runs are given by repeating --git-dir/--rev/--name (same count each);
every run gets its own process so peak-memory figures are per run. Results: a table on stdout and
bench/results/index_graph.{json,md} (or --out PREFIX).

    python bench/index_graph.py \\
        --git-dir /work/.mirror/sphinx-doc+sphinx/repo --rev 6cb783c0024a873722952a67ebb9f41771c8eb6d --name sphinx-doc/sphinx \\
        --git-dir /work/.mirror/google+gson/repo --rev e614e71ee43ca7bc1cb466bd1eaf4d85499900d9 --name google/gson \\
        --git-dir /work/.mirror/iamkun+dayjs/repo --rev f4cb2cfd77246116cb4151c74ca2f600a17cd951 --name iamkun/dayjs \\
        --git-dir /work/.mirror/grpc+grpc-go/repo --rev 192c8a2a3506bb69336f5c135733a3435a04fb30 --name grpc/grpc-go \\
        --git-dir /work/.mirror/tokio-rs+tokio/repo --rev 338e13b04baa3cf8db3feb1ba2266c0070a9efdf --name tokio-rs/tokio \\
        --git-dir /work/.mirror/facebook+zstd/repo --rev 372fddf4e6a6db6776b745f31c02a7c8c8dfc83f --name facebook/zstd \\
        --passes 9 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import gc
import io
import json
import os
import pstats
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path, PurePosixPath

import environment  # bench/environment.py (this script's directory is on sys.path)
from _common import ROOT
from spider.core.settings import Settings
from spider.indexer.graph import neo4j_local
from spider.indexer.graph.store import GraphStore
from spider.indexer.graph.versions import delete_snapshot
from spider.indexer.languages import language_of
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.parse.treesitter import parser as ts_parser
from spider.indexer.pipeline.report import IndexReport
from spider.indexer.pipeline.stages import PARALLEL_MIN_BYTES, graph_of, parse_all, parse_batch, write_graph
from spider.indexer.source.walk import open_commit, read_blobs, select_files

MB = 1_000_000
PACKAGE = Path(neo4j_local.__file__).parents[2]  # the `spider` folder (spider/indexer/graph/neo4j_local.py)
STAGES = ("open_commit", "select_files", "parse_all", "graph_of", "write_graph")


SKIPPED_BEFORE_EXTRACTION = ("binary", "minified", "generated")  # parse_file's reasons to skip a file unparsed
MANIFESTS = ("go.mod", "Cargo.toml")  # read by their language's extractor as text, not by a tree-sitter grammar


def grammar_for(path: str) -> str | None:
    """The grammar the extractor uses for `path` (mirrors indexer.languages.javascript.extract.extract); None for
    a build manifest (go.mod, Cargo.toml), which no grammar parses."""
    if path.rpartition("/")[2] in MANIFESTS:
        return None
    language = language_of(path)
    if language == "typescript":
        return "tsx" if PurePosixPath(path).suffix.lower() == ".tsx" else "typescript"
    assert language is not None, path
    return language


def maxrss_mb(who: int) -> float:
    return round(resource.getrusage(who).ru_maxrss / 1024, 1)  # Linux reports KiB


def best_of_interleaved(passes: int, works: dict) -> dict[str, dict[str, float]]:
    """Best (minimum) wall and CPU seconds of each loop; passes alternate between the loops so that a change
    in machine load between them does not skew their ratio."""
    best = {name: {"wall": float("inf"), "cpu": float("inf")} for name in works}
    for _ in range(passes):
        for name, work in works.items():
            gc.collect()
            wall, cpu = time.perf_counter(), time.process_time()
            work()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            best[name]["wall"] = min(best[name]["wall"], wall)
            best[name]["cpu"] = min(best[name]["cpu"], cpu)
    return best


def hot_spots(profile: cProfile.Profile, top: int) -> list[dict]:
    """The functions with the most own (tottime) time, with their share of the profiled total."""
    stats = pstats.Stats(profile, stream=io.StringIO())
    total = sum(row[2] for row in stats.stats.values()) or 1.0
    rows = []
    for (filename, line, function), (_cc, ncalls, tottime, cumtime, _callers) in stats.stats.items():
        where = filename
        if where.startswith(str(ROOT)):
            where = os.path.relpath(where, ROOT)
        elif where.startswith(str(PACKAGE)):  # the `spider` namespace links to this checkout's folders
            where = os.path.relpath(where, PACKAGE)
        elif "site-packages/" in where:
            where = where.split("site-packages/", 1)[1]
        rows.append({
            "where": f"{where}:{line}:{function}" if filename != "~" else function,
            "calls": ncalls, "own_s": round(tottime, 3), "cum_s": round(cumtime, 3),
            "own_share": round(tottime / total, 3),
        })
    rows.sort(key=lambda r: r["own_s"], reverse=True)
    return rows[:top]


def one_run(git_dir: str, rev: str, name: str, passes: int, pipeline_passes: int, profile: bool, top: int) -> dict:
    started_wall = time.perf_counter()
    result: dict = {"name": name, "git_dir": git_dir, "rev": rev, "loadavg_start": os.getloadavg()}

    # Warm the OS page cache for the pack files so the pipeline is not timed against a cold disk.
    commit = open_commit(git_dir, rev)
    selection = select_files(commit)
    for _ in read_blobs(commit.git_dir, sorted({f.blob for f in selection.files})):
        pass

    # (c) the pipeline, stage by stage, exactly as indexer.pipeline.index.index_repository runs it; --pipeline-passes
    # times (a fresh snapshot each, deleted after), reported as the median pass; the first pass also on its own
    # (the Neo4j server's JIT and caches are coldest then).
    stamp = dt.datetime.now().strftime('%Y%m%dT%H%M%S')
    store = neo4j_local.open_graph(Settings.from_env())
    write_breakdown = _time_queries(store)
    passes_seconds: list[dict[str, float]] = []
    write_profile = cProfile.Profile() if profile else None
    try:
        for n in range(pipeline_passes):
            repo = f"bench/{name.replace('/', '-')}-{stamp}-{n}"
            seconds: dict[str, float] = {}
            try:
                t0 = time.perf_counter()
                commit = open_commit(git_dir, rev)
                report = IndexReport(repo=repo, snapshot=commit.sha, rev=commit.rev)
                assert store.snapshot_state(report.repo, report.snapshot) is None
                seconds["open_commit"] = time.perf_counter() - t0
                t = time.perf_counter()
                selection = select_files(commit)
                seconds["select_files"] = time.perf_counter() - t
                t = time.perf_counter()
                outcomes = parse_all(commit, selection.files)
                seconds["parse_all"] = time.perf_counter() - t
                t = time.perf_counter()
                graph, _ = graph_of(report, selection, outcomes)
                seconds["graph_of"] = time.perf_counter() - t
                write_breakdown.clear()  # the last pass's writes are the ones broken down
                write_cpu = time.process_time()
                t = time.perf_counter()
                if write_profile and n == pipeline_passes - 1:
                    write_profile.enable()
                write_graph(store, report, graph)
                store.complete_snapshot(report.repo, report.snapshot, report.stats())  # graph only: no embed
                if write_profile:
                    write_profile.disable()
                seconds["write_graph"] = time.perf_counter() - t
                write_cpu = time.process_time() - write_cpu
                seconds["total"] = time.perf_counter() - t0
                written = len(graph.nodes) + len(graph.edges)
                if n == 0:
                    rss_after_pipeline = {"self_mb": maxrss_mb(resource.RUSAGE_SELF),
                                          "children_mb": maxrss_mb(resource.RUSAGE_CHILDREN)}
                state = store.snapshot_state(report.repo, report.snapshot)
                assert state and state.complete, state
            finally:
                t = time.perf_counter()
                deleted = delete_snapshot(store, repo, commit.sha)
                delete_s = time.perf_counter() - t
                left = store.snapshot_state(repo, commit.sha)
            passes_seconds.append(seconds)
            del graph, outcomes
            gc.collect()
    finally:
        del store._run  # stop timing queries
        store.close()
    seconds = {k: statistics.median(p[k] for p in passes_seconds) for k in passes_seconds[0]}

    files = selection.files
    source_bytes = sum(f.size for f in files)
    workers = os.cpu_count() or 1
    result.update({
        "commit": commit.sha,
        "files": len(files),
        "source_mb": round(source_bytes / MB, 3),
        "files_by_language": _count(language_of(f.path) for f in files),
        "other_files": selection.other,
        "skipped_at_selection": dict(selection.skipped),
        "files_in_graph": report.files_parsed,
        "skipped_at_parse": dict(report.skipped - selection.skipped),
        "nodes": dict(report.nodes), "relationships": dict(report.relationships),
        "nodes_plus_relationships": written,
    })

    # (a) and (b): single process, same bytes, in memory.
    # Left out of both loops, so that they time the same bytes: build manifests (raw has no grammar for them) and
    # the files parse_file skips before its extractor parses them (generated, minified, binary). The pipeline (c)
    # reads them all.
    blobs = dict(read_blobs(commit.git_dir, sorted({f.blob for f in files})))
    manifests = [(f.path, blobs[f.blob]) for f in files if grammar_for(f.path) is None]
    skipped: dict[str, list[int]] = {}  # reason -> [files, bytes]
    items = []
    for f in files:
        if grammar_for(f.path) is None:
            continue
        reason = parse_file(f.path, blobs[f.blob]).skipped
        if reason in SKIPPED_BEFORE_EXTRACTION:
            entry = skipped.setdefault(reason, [0, 0])
            entry[0] += 1
            entry[1] += len(blobs[f.blob])
        else:
            items.append((f.path, blobs[f.blob]))
    parsed_bytes = sum(len(data) for _, data in items)
    assert parsed_bytes + sum(len(data) for _, data in manifests) + sum(b for _, b in skipped.values()) == source_bytes
    by_grammar = [(ts_parser(grammar_for(path)), data) for path, data in items]

    def raw() -> None:
        for p, data in by_grammar:
            p.parse(data)

    def extract() -> None:
        for path, data in items:
            parse_file(path, data)

    def serial_parse_batch() -> None:  # parse_all's work without the pool: blobs read from git, then parsed
        parse_batch(commit, files)

    extract()  # import the extractor modules, warm caches
    best = best_of_interleaved(passes, {"raw": raw, "extract": extract, "serial": serial_parse_batch})
    raw_s, extract_s = best["raw"]["wall"], best["extract"]["wall"]
    result["microbench"] = {
        "passes": passes,
        "files": len(items), "mb": round(parsed_bytes / MB, 3),
        "manifests_left_out": {"files": len(manifests), "mb": round(sum(len(d) for _, d in manifests) / MB, 3)},
        "skipped_left_out": {reason: {"files": n, "mb": round(b / MB, 3)} for reason, (n, b) in skipped.items()},
        "raw_treesitter_s": round(raw_s, 3),
        "raw_treesitter_mb_s": round(parsed_bytes / MB / raw_s, 2),
        "parse_extract_s": round(extract_s, 3),
        "parse_extract_mb_s": round(parsed_bytes / MB / extract_s, 2),
        "ratio": round(raw_s / extract_s, 3),  # == extract MB/s / raw MB/s
        "raw_treesitter_cpu_s": round(best["raw"]["cpu"], 3),
        "parse_extract_cpu_s": round(best["extract"]["cpu"], 3),
        "ratio_cpu": round(best["raw"]["cpu"] / best["extract"]["cpu"], 3),
        "serial_parse_batch_s": round(best["serial"]["wall"], 3),
        "serial_parse_batch_mb_s": round(source_bytes / MB / best["serial"]["wall"], 2),
    }
    result["loadavg_end"] = os.getloadavg()
    if profile:
        prof = cProfile.Profile()
        prof.enable()
        extract()
        prof.disable()
        result["profile_parse_extract"] = hot_spots(prof, top)
        result["profile_write_graph"] = hot_spots(write_profile, top)

    total = seconds["total"]
    pool = workers > 1 and source_bytes >= PARALLEL_MIN_BYTES
    result["pipeline"] = {
        "parse_mode": f"process pool, {workers} workers" if pool else "serial (below PARALLEL_MIN_BYTES or 1 cpu)",
        "passes": pipeline_passes,
        "seconds": {k: round(v, 3) for k, v in seconds.items()},  # median pass, stage by stage
        "first_pass_seconds": {k: round(v, 3) for k, v in passes_seconds[0].items()},
        "totals_s": [round(p["total"], 3) for p in passes_seconds],
        "share": {k: round(seconds[k] / total, 3) for k in STAGES},
        "files_per_s": round(len(files) / total, 1),
        "mb_per_s": round(source_bytes / MB / total, 3),
        "parse_all_mb_per_s": round(source_bytes / MB / seconds["parse_all"], 2),
        "nodes_rels_per_s_write": round(written / seconds["write_graph"], 0),
        "nodes_rels_per_s_total": round(written / total, 0),
        "write_graph_client_cpu_s": round(write_cpu, 3),  # this process: row building + Bolt packing
        "write_breakdown": {k: {"queries": v[0], "rows": v[1], "s": round(v[2], 3)}
                            for k, v in sorted(write_breakdown.items(), key=lambda kv: -kv[1][2])},
        "repo_name_used": repo, "snapshot_nodes_deleted": deleted, "delete_snapshot_s": round(delete_s, 3), "snapshot_left_behind": left is not None,
    }
    result["peak_rss"] = {
        "after_pipeline": rss_after_pipeline,
        "at_end": {"self_mb": maxrss_mb(resource.RUSAGE_SELF), "children_mb": maxrss_mb(resource.RUSAGE_CHILDREN)},
        "note": "self = this process (max resident); children = largest waited-for child (pool worker or git)",
    }
    result["wall_s"] = round(time.perf_counter() - started_wall, 1)
    return result


def _time_queries(store: GraphStore) -> dict[str, list]:
    """Wrap store._run so every query's round trip is summed per kind: category -> [queries, rows, seconds]."""
    totals: dict[str, list] = {}
    original = store._run

    def timed(query: str, **params):
        t = time.perf_counter()
        try:
            return original(query, **params)
        finally:
            elapsed = time.perf_counter() - t
            if "CREATE CONSTRAINT" in query or "CREATE INDEX" in query:
                kind = "schema"
            elif (m := re.search(r"(?:MERGE|CREATE) \(n:(\w+)", query)) and "UNWIND" in query:
                kind = f"nodes {m.group(1)}"
            elif m := re.search(r"(?:MERGE|CREATE) \(a\)-\[\w*:(\w+)", query):
                kind = f"edges {m.group(1)}"
            else:
                kind = "other (writer lock, snapshot marker, reads)"
            entry = totals.setdefault(kind, [0, 0, 0.0])
            entry[0] += 1
            entry[1] += len(params.get("rows") or ())
            entry[2] += elapsed

    store._run = timed
    return totals


def _count(values) -> dict:
    counts: dict = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return counts


def machine() -> dict:
    neo = neo4j_local.status()
    return {
        **environment.machine(("tree-sitter", "tree-sitter-python", "tree-sitter-java", "tree-sitter-javascript",
                               "tree-sitter-typescript", "tree-sitter-go", "tree-sitter-c", "tree-sitter-rust",
                               "neo4j")),
        "neo4j_version": neo.get("neo4j_version"), "neo4j_uri": os.environ.get("NEO4J_URI") or neo.get("uri"),
        "neo4j_heap": neo4j_local.HEAP, "neo4j_pagecache": neo4j_local.PAGECACHE,
    }


def table(runs: list[dict]) -> list[str]:
    header = ["repo", "files", "MB", "raw MB/s", "extract MB/s", "ratio", "select s", "parse_all s",
              "graph_of s", "write s", "total s", "files/s", "MB/s", "n+r", "n+r/s write", "write share",
              "peak RSS MB (self/child)"]
    rows = []
    for r in runs:
        m, p, s = r["microbench"], r["pipeline"], r["pipeline"]["seconds"]
        rss = r["peak_rss"]["after_pipeline"]
        rows.append([
            r["name"], r["files"], r["source_mb"], m["raw_treesitter_mb_s"], m["parse_extract_mb_s"],
            f"{m['ratio']:.0%}", s["select_files"], s["parse_all"], s["graph_of"], s["write_graph"], s["total"],
            p["files_per_s"], p["mb_per_s"], r["nodes_plus_relationships"], int(p["nodes_rels_per_s_write"]),
            f"{p['share']['write_graph']:.0%}", f"{rss['self_mb']:.0f}/{rss['children_mb']:.0f}",
        ])
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + [
        "| " + " | ".join(str(c) for c in row) + " |" for row in rows
    ]


def markdown(doc: dict) -> str:
    mach, out = doc["machine"], []
    out.append("# Indexing benchmark (bench/index_graph.py)\n")
    out.append(f"Date {doc['date']}, spider {doc['spider']['sha'][:12]}"
               + (f" (+ uncommitted: {', '.join(doc['spider']['uncommitted_changes'])})"
                  if doc["spider"]["uncommitted_changes"] else "") + ".")
    out.append(f"Machine: {mach['nproc']} CPU ({mach['cpu_model']}), {mach['mem_gb']} GB, Python {mach['python']}, "
               f"Neo4j {mach['neo4j_version']} (heap {mach['neo4j_heap']}, page cache {mach['neo4j_pagecache']}), "
               f"tree-sitter {mach['tree-sitter']} (grammars: "
               + ", ".join(f"{k.removeprefix('tree-sitter-')} {v}" for k, v in mach.items()
                           if k.startswith("tree-sitter-")) + ").\n")
    out.append("raw = `Parser.parse(bytes)` only; extract = `parse_file` (tree-sitter + extractor); both single "
               f"process, bytes in memory, best of {doc['runs'][0]['microbench']['passes']}, over the files the extractor "
               "parses (files and MB are the selection the pipeline reads; what raw and extract leave out is listed "
               "per repository). ratio = extract MB/s ÷ raw MB/s (target ≥ 50%). Stage seconds are the real pipeline, the median of "
               f"{doc['runs'][0]['pipeline'].get('passes', 1)} passes (parse_all = in-process, or a pool of nproc workers above "
               "PARALLEL_MIN_BYTES, incl. reading blobs from git; write = Neo4j). n+r = nodes + relationships written. "
               "Peak RSS after the pipeline: this process / largest child.\n")
    out += table(doc["runs"])
    out.append("")
    for r in doc["runs"]:
        out.append(f"## {r['name']} @ {r['commit'][:12]}\n")
        out.append(f"- files by language: {r['files_by_language']}; in graph: {r['files_in_graph']}; "
                   f"skipped at parse: {r['skipped_at_parse'] or 'none'}")
        out.append(f"- nodes {r['nodes']}; relationships {r['relationships']}")
        out.append(f"- parse mode: {r['pipeline']['parse_mode']}; parse_all {r['pipeline']['parse_all_mb_per_s']} MB/s; "
                   f"stage shares {r['pipeline']['share']}")
        if "totals_s" in r["pipeline"]:
            out.append(f"- pipeline passes' totals {r['pipeline']['totals_s']} s; the first pass stage by stage "
                       f"{r['pipeline']['first_pass_seconds']}")
        m = r["microbench"]
        out.append(f"- raw {m['raw_treesitter_s']} s, extract {m['parse_extract_s']} s (CPU-time ratio "
                   f"{m['ratio_cpu']:.0%}); parse_batch in one process (no pool) {m['serial_parse_batch_s']} s = "
                   f"{m['serial_parse_batch_mb_s']} MB/s vs the pipeline's parse_all "
                   f"{r['pipeline']['parse_all_mb_per_s']} MB/s; load average start/end "
                   f"{[round(x, 1) for x in r['loadavg_start']]} / {[round(x, 1) for x in r['loadavg_end']]}")
        left_out = [f"{v['files']} {k} ({v['mb']} MB)" for k, v in m.get("skipped_left_out", {}).items()]
        if m.get("manifests_left_out", {}).get("files"):
            left_out.append(f"{m['manifests_left_out']['files']} build manifests ({m['manifests_left_out']['mb']} MB; "
                            "go.mod, Cargo.toml: read as text, no grammar)")
        if left_out:
            out.append(f"- raw and extract over {m['files']} files, {m['mb']} MB: left out of both loops, not of the "
                       f"pipeline, {', '.join(left_out)}")
        wb = r["pipeline"]["write_breakdown"]
        out.append(f"- write_graph {r['pipeline']['seconds']['write_graph']} s; the last pass's write used "
                   f"{r['pipeline']['write_graph_client_cpu_s']} s of client CPU (building rows, packing Bolt), "
                   f"and deleting its snapshot took {r['pipeline']['delete_snapshot_s']} s")
        out.append("- write_graph by query kind, last pass (queries, rows, seconds): "
                   + "; ".join(f"{k} {v['queries']}q/{v['rows']}r/{v['s']}s" for k, v in wb.items()))
        for key, title in (("profile_parse_extract", "parse+extract"), ("profile_write_graph", "write_graph")):
            if key in r:
                out.append(f"\nTop own-time functions, {title} (cProfile):\n")
                out.append("| function | calls | own s | share |\n|---|---|---|---|")
                for h in r[key]:
                    out.append(f"| `{h['where']}` | {h['calls']} | {h['own_s']} | {h['own_share']:.1%} |")
        out.append("")
    if doc.get("analysis"):
        out.append("## Analysis\n")
        out.append(doc["analysis"])
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--git-dir", action="append", default=[], help="repository (bare or working tree); repeatable")
    ap.add_argument("--rev", action="append", default=[], help="commit to index; one per --git-dir")
    ap.add_argument("--name", "--repo", dest="name", action="append", default=[],
                    help="short name, e.g. sphinx-doc/sphinx (the graph uses bench/<name>-<time>); one per --git-dir")
    ap.add_argument("--passes", type=int, default=3, help="best of N for the raw and extract loops")
    ap.add_argument("--pipeline-passes", type=int, default=3, help="pipeline passes; the median is reported")
    ap.add_argument("--profile", action="store_true", help="also cProfile one parse+extract pass and the write")
    ap.add_argument("--top", type=int, default=12, help="hot spots to keep per profile")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "index_graph"), help="results path prefix")
    ap.add_argument("--analysis", help="a Markdown file whose text is appended to the results as the analysis")
    ap.add_argument("--render-only", action="store_true",
                    help="do not measure: re-render --out's JSON as Markdown (e.g. after adding --analysis)")
    ap.add_argument("--single-json", help=argparse.SUPPRESS)  # internal: run exactly one run, write its JSON here
    args = ap.parse_args()
    out = Path(args.out)
    if args.render_only:
        doc = json.loads(out.with_suffix(".json").read_text())
        if args.analysis:
            doc["analysis"] = Path(args.analysis).read_text()
        out.with_suffix(".json").write_text(json.dumps(doc, indent=2) + "\n")
        out.with_suffix(".md").write_text(markdown(doc))
        print("\n".join(table(doc["runs"])))
        return
    if not args.git_dir or not (len(args.git_dir) == len(args.rev) == len(args.name)):
        ap.error("give --git-dir, --rev and --name, the same number of times")

    if args.single_json:
        run = one_run(args.git_dir[0], args.rev[0], args.name[0], args.passes, args.pipeline_passes, args.profile,
                      args.top)
        Path(args.single_json).write_text(json.dumps(run))
        return

    neo4j_local.graph_settings(Settings.from_env())  # start the local server before timing anything
    runs = []
    for git_dir, rev, name in zip(args.git_dir, args.rev, args.name):
        print(f"bench: {name} @ {rev} …", file=sys.stderr, flush=True)
        with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
            command = [sys.executable, __file__, "--git-dir", git_dir, "--rev", rev, "--name", name,
                       "--passes", str(args.passes), "--pipeline-passes", str(args.pipeline_passes),
                       "--top", str(args.top), "--single-json", tmp.name]
            subprocess.run(command + (["--profile"] if args.profile else []), check=True)
            runs.append(json.loads(Path(tmp.name).read_text()))
    doc = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "spider": environment.spider_commit(("indexer", "cypher")),
        "machine": machine(),
        "command": " ".join(["python", "bench/index_graph.py", *sys.argv[1:]]),
        "runs": runs,
    }
    if args.analysis:
        doc["analysis"] = Path(args.analysis).read_text()
    print("\n".join(table(runs)))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(doc, indent=2) + "\n")
    out.with_suffix(".md").write_text(markdown(doc))
    print(f"wrote {out.with_suffix('.json')} and {out.with_suffix('.md')}", file=sys.stderr)


if __name__ == "__main__":
    main()
