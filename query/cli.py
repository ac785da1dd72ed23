"""`spider-query`: issue text -> the functions of an indexed snapshot most likely to need edits."""

from __future__ import annotations

import sys
import time

import click

from indexer import neo4j_local
from indexer.cli import fail_cleanly
from indexer.embedding import open_embedder
from indexer.errors import SpiderError
from indexer.graph_store import GraphStore
from indexer.vectors import collection_name, open_vector_store
from query.bm25 import snapshot_index
from query.dense import dense_ranking
from query.results import Answer, ranked

METHODS = ("der", "bm25")


def read_issue(issue: str | None, issue_file) -> str:
    """The issue text: the argument, else --issue-file, else standard input (when it is not a terminal)."""
    if issue is None and issue_file is not None:
        issue = issue_file.read()
    if issue is None and not sys.stdin.isatty():
        issue = sys.stdin.read()
    if not issue or not issue.strip():
        raise SpiderError("no issue text: pass it as an argument, with --issue-file FILE, or on standard input")
    return issue


@click.command(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("issue", required=False)
@click.option("--issue-file", type=click.File("r"), help="Read the issue text from FILE ('-' for stdin).")
@click.option("--repo", help="Repository as indexed by `spider index` (default: the only one indexed).")
@click.option("--rev", help="Snapshot: a commit sha (prefix) or the revision it was indexed as (default: newest).")
@click.option("--method", type=click.Choice(METHODS), default="der", show_default=True,
              help="der: dense retrieval over function embeddings; bm25: sparse retrieval over the same texts.")
@click.option("-k", "k", type=click.IntRange(1, 1000), default=20, show_default=True, help="How many functions.")
@click.option("--model", help="Embedding model for der (default: the one the snapshot was indexed with).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: every field of every result.")
@fail_cleanly
def main(issue: str | None, issue_file, repo: str | None, rev: str | None, method: str, k: int,
         model: str | None, as_json: bool) -> None:
    """Rank the functions of an indexed repository snapshot for ISSUE (text of a bug report or task).

    Each result has its rank, score, id (path:qualified.name) and path:lines.
    """
    text = read_issue(issue, issue_file)
    seconds: dict[str, float] = {}
    with GraphStore(neo4j_local.connection_settings()) as store:
        repo = repo or store.only_repository()
        snapshot = store.resolve_snapshot(repo, rev)
        t = time.perf_counter()
        if method == "bm25":
            scored = snapshot_index(store, repo, snapshot).search(text, k)
            used_model = None
        else:
            embedding = (store.snapshot_state(repo, snapshot)["stats"] or {}).get("embedding")
            if not embedding and not model:
                raise SpiderError(f"{repo} @ {snapshot[:12]} was indexed without embeddings: "
                                  "re-index it without --no-embed, or use --method bm25")
            embedder = open_embedder(model or embedding["model"])
            seconds["model load"] = round(time.perf_counter() - t, 3)
            t = time.perf_counter()
            with open_vector_store(collection_name(embedder.name, embedder.dim), embedder.dim) as vectors:
                scored = dense_ranking(embedder, vectors, repo, snapshot, text, k)
            used_model = embedder.name
        seconds[method] = round(time.perf_counter() - t, 3)
        answer = Answer(repo, snapshot, method, k, ranked(store, repo, snapshot, scored, "bm25" if method == "bm25" else "dense"),
                        seconds, used_model)
    click.echo(answer.to_json() if as_json else answer.to_table())
