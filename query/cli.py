"""`spider-query`: issue text -> the functions most likely to need edits."""

from __future__ import annotations

import sys

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("issue", required=False)
@click.option("--repo", help="Repository name as indexed by `spider index`.")
def main(issue: str | None, repo: str | None) -> None:
    """Rank the functions of an indexed repository for ISSUE.

    Not available yet: retrieval needs function embeddings (Qdrant) or a BM25 index, which are not built by
    this version. `spider index` and `spider cypher` work.
    """
    click.echo("spider-query: error: retrieval is not available in this version (no embeddings or BM25 index "
               "are built yet); use `spider cypher` to explore the graph", err=True)
    sys.exit(2)
