"""`spider query`, also installed as the program `spider-query`: issue text -> the functions of an indexed snapshot
most likely to need edits, each explained."""

from __future__ import annotations

import os
import sys

import click
from spider.cli.error_handler import command_settings, debug_option, fail_cleanly
from spider.core.errors import InvalidInput
from spider.indexer.api import open_stores
from spider.query import render
from spider.query.api import localize
from spider.query.expand import DEFAULT_EDGES, edges_label, parse_edges
from spider.query.pipeline import GRAPH_METHODS, METHODS, SELECTORS, open_selector
from spider.query.retrieve.first_stage import FIRST_STAGES
from spider.query.retrieve.tests_policy import DEFAULT_TESTS, TEST_POLICIES


def read_issue(issue: str | None, issue_file) -> tuple[str, list[str]]:
    """The issue text: the argument, else --issue-file, else standard input (when it is not a terminal); and a
    note when it is not UTF-8, whose undecodable bytes become U+FFFD: an answer beats a refusal."""
    if issue is not None:
        raw = os.fsencode(issue)  # the argument's bytes as given (Python keeps undecodable ones as surrogates)
    elif issue_file is not None:
        raw = issue_file.read()
    else:
        raw = b"" if sys.stdin.isatty() else sys.stdin.buffer.read()
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        raise InvalidInput("no issue text: pass it as an argument, with --issue-file FILE, or on standard input")
    undecodable = text.count("\ufffd") - raw.count("\ufffd".encode())
    notes = [f"the issue text is not UTF-8: {undecodable} undecodable byte sequence(s) read as U+FFFD"]
    return text, notes if undecodable else []


@click.command("query", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("issue", required=False)
@click.option("--issue-file", type=click.File("rb"), help="Read the issue text from FILE ('-' for stdin).")
@click.option("--repo", help="Repository as indexed by `spider index` (default: the only one indexed).")
@click.option("--rev", help="Snapshot: a commit sha (prefix) or the revision it was indexed as (default: newest).")
@click.option("--method", type=click.Choice(METHODS), default="spider", show_default=True,
              help="der: dense retrieval; bm25: sparse retrieval; hybrid: both fused with the functions the issue "
                   "names (stack-trace frames, identifiers, paths, error messages); spider: graph expansion + "
                   "selection over --first-stage; spisr: the same over the BM25 ranking.")
@click.option("--first-stage", type=click.Choice([stage.value for stage in FIRST_STAGES]),
              help="spider: the ranking seeds and pool come from: dense, bm25 or hybrid. [default: hybrid]")
@click.option("--tests", type=click.Choice(TEST_POLICIES), default=DEFAULT_TESTS.value, show_default=True,
              help="Test code (each language's test directories, file names and in-file markers): exclude it from "
                   "the ranking, demote it (counted twice as far down), or include it as ranked. A fix almost "
                   "never edits tests.")
@click.option("-k", "k", type=click.IntRange(1, 1000), default=20, show_default=True, help="How many functions.")
@click.option("-n", "n", type=click.IntRange(1, 5000), default=500, show_default=True,
              help="spider/spisr: candidate pool; neighbours outside the first-stage top-n are dropped (Stage 1).")
@click.option("-c", "c", type=click.IntRange(1, 100), default=5, show_default=True,
              help="spider/spisr: seeds, the top-c results whose graph neighbourhoods are explored (at most k).")
@click.option("--edges", default=edges_label(DEFAULT_EDGES), show_default=True, metavar="TYPE:DEPTH,...",
              help="spider/spisr: relationship types to expand along, each with its depth (1-6), e.g. "
                   "contains:4,invokes:2. Types: contains, invokes, imports, inherits.")
@click.option("--selector", type=click.Choice(SELECTORS),
              help="spider/spisr Stage 2: anthropic (ANTHROPIC_API_KEY), openai (SPIDER_OPENAI_BASE_URL, any "
                   "OpenAI-compatible server), learned (no LLM: a small model trained on benchmark issues), all (admit every proposal: more than k results), "
                   "none (= the first-stage ranking). Default: an LLM if one is configured, else learned.")
@click.option("--model", help="The selector's LLM (default: SPIDER_ANTHROPIC_MODEL / SPIDER_OPENAI_MODEL).")
@click.option("--embed-model", help="Embedding model for the dense ranking (default: the snapshot's own).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: every field of every result, every selector call.")
@debug_option
@fail_cleanly
def query_command(issue: str | None, issue_file, repo: str | None, rev: str | None, method: str, k: int, n: int, c: int,
         edges: str, selector: str | None, model: str | None, embed_model: str | None, as_json: bool,
         first_stage: str | None, tests: str) -> None:
    """Rank the functions of an indexed repository snapshot for ISSUE (text of a bug report or task).

    Each result has its rank, score, id (path:qualified.name), path:lines and, for hybrid, spider and spisr, why
    it is there: its first-stage rank (hybrid: its dense and BM25 ranks, and how the issue names it), or the
    seed, hops and relationships that reached it and the selector's verdict.
    """
    text, issue_notes = read_issue(issue, issue_file)
    graph = method in GRAPH_METHODS
    settings = command_settings()
    chosen, notes = open_selector(selector, model, settings=settings) if graph else (None, [])
    edge_depths = parse_edges(edges) if graph else None
    with open_stores(settings) as stores:  # after the selector: its configuration errors need no server
        answer = localize(stores, text, repo=repo, rev=rev, method=method, k=k, n=n, c=c, edges=edge_depths,
                          selector=chosen, embed_model=embed_model, first_stage=first_stage, tests=tests)
    answer.notes[:0] = issue_notes + notes
    click.echo(render.to_json(answer) if as_json else render.to_table(answer))
