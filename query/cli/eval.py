"""`spider eval` and `spider train-selector`: evaluate localization on a benchmark and train the learned selector
from an evaluation. They need the query layer, so they live on its side; `query.cli.main` adds them to `spider`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click
from spider.cli.error_handler import command_settings, fail_cleanly
from spider.core.settings import path_name
from spider.indexer.graph import neo4j_local
from spider.query.evaluation.run import (
    EDGE_CONFIGS,
    KS,
    default_methods,
    load_instances,
    merge_cross_validation,
    method_forms,
    parse_method,
    read_results,
    run_evaluation,
)
from spider.query.evaluation.summary import render_markdown, summarize
from spider.query.evaluation.train_selector import train_selector
from spider.query.pipeline import SELECTORS
from spider.query.select.learned import SHIPPED_MODEL


@click.command("eval")
@click.option("--bench", "bench_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="Benchmark directory: instances.jsonl, ground_truth.jsonl, subsets.json.")
@click.option("--repos", "repos_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="Directory of git repositories (bare or not): OWNER+NAME/repo, OWNER/NAME or NAME.")
@click.option("--subset", "subsets", multiple=True,
              help="A subset named in subsets.json (e.g. quick, dev); repeatable (their union); default: every instance.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Results directory: instances.jsonl (one line per instance; a rerun resumes), summary.{json,md}.")
@click.option("--method", "methods", multiple=True,
              help=f"{method_forms()}; repeatable. Default: der, sr, hybrid, and for each of "
                   f"{', '.join(EDGE_CONFIGS)}: spider with --selector, its ceiling (all) and oracle, spider-dense "
                   "and spisr with --selector.")
@click.option("--selector", type=click.Choice([s for s in SELECTORS if s not in ("all", "none")]), default="learned",
              show_default=True, help="The selector of the default spider/spisr methods.")
@click.option("-k", "ks", multiple=True, type=int, help=f"K values (default {', '.join(map(str, KS))}).")
@click.option("-n", "n", type=int, default=500, show_default=True, help="Candidate pool.")
@click.option("-c", "c", type=int, default=5, show_default=True, help="Seeds.")
@click.option("--limit", type=int, help="Only the first N instances (after --subset).")
@fail_cleanly
def eval_command(bench_dir: Path, repos_dir: Path, subsets: tuple[str, ...], out_dir: Path, methods: tuple[str, ...],
                 selector: str, ks: tuple[int, ...], n: int, c: int, limit: int | None) -> None:
    """Evaluate localization on a benchmark: index each repository at each instance's base commit (real
    Neo4j, Qdrant, embeddings), run every method at every K, and write per-instance results and a summary."""
    chosen = [parse_method(m) for m in methods] or default_methods(selector)
    k_values = tuple(sorted(set(ks))) or KS
    instances = load_instances(bench_dir, subsets)[:limit]
    started = time.time()
    settings = command_settings()
    with neo4j_local.open_graph(settings) as store:
        results, failures = run_evaluation(store, instances, repos_dir, out_dir, chosen, k_values, n, c, selector,
                                           report=lambda line: click.echo(line, err=True), settings=settings)
    wanted = {i.id for i in instances}
    rows = [row for row in read_results(results) if row["instance_id"] in wanted]
    names = [m.name for m in chosen] + merge_cross_validation(rows, out_dir / "learned_cv.jsonl", k_values,
                                                              report=lambda line: click.echo(line, err=True))
    summary = summarize(rows, names, k_values)
    summary["run"] = {"subset": "+".join(subsets) or None, "methods": names, "ks": list(k_values), "n": n, "c": c,
                      "selector": selector, "wall_seconds_this_invocation": round(time.time() - started, 1)}
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out_dir / "summary.md").write_text(render_markdown(summary, names, k_values))
    click.echo(render_markdown(summary, names, k_values))
    if failures:
        click.echo(f"{len(failures)} instance(s) failed and are not in the summary (listed in "
                   f"{out_dir / 'failures.jsonl'}); first: {failures[0]['instance_id']}: {failures[0]['error']}", err=True)
        sys.exit(1)


@click.command("train-selector")
@click.option("--from", "eval_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="A `spider eval` results directory (its candidates.jsonl is the training data).")
@click.option("--out", "model_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the model file (default: SPIDER_HOME/selectors/learned-VERSION.json; "
                   f"{SHIPPED_MODEL.name} in spider's package is the shipped one). Serve it with SPIDER_LEARNED_MODEL.")
@click.option("--version", "version", required=True, help="The model's version, recorded in the file and the output.")
@click.option("-k", "ks", multiple=True, type=int, help=f"K values to cross-validate at (default {', '.join(map(str, KS))}).")
@fail_cleanly
def train_selector_command(eval_dir: Path, model_out: Path | None, version: str, ks: tuple[int, ...]) -> None:
    """Train the learned selector on an evaluation's dump, with leave-one-repository-out cross-validation.

    The out-of-fold answers go to learned_cv.jsonl in the results directory, as methods
    spider/learned-cv/EDGES; rerun `spider eval` with the same arguments to see them in the summary."""
    # Never into the installed package by default: that is the model every query serves, and a checkout's file.
    model_out = model_out or command_settings().home_dir() / "selectors" / f"learned-{path_name(version)}.json"
    train_selector(eval_dir, model_out, version, tuple(sorted(set(ks))) or KS, report=lambda line: click.echo(line, err=True))
    click.echo(f"serve it: SPIDER_LEARNED_MODEL={model_out}", err=True)
