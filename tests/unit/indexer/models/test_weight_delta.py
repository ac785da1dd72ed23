"""The weight delta a tuned model ships as: 4-bit rows with float16 scales, embedding rows tuning did not move
left out, compared with the exact difference it encodes."""

from __future__ import annotations

import numpy as np
import pytest
from spider.core.errors import InvalidInput
from spider.indexer.models.weight_delta import (
    LEVELS,
    ROW_THRESHOLD,
    apply_delta,
    dequantize_rows,
    encode_delta,
    quantize_rows,
)


def tuned_pair(seed: int = 0) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """A small base model and a tuning of it: every weight moved by about 1%, but for the embedding rows of
    tokens the tuning never saw (2, 5) and an untouched tensor."""
    rng = np.random.default_rng(seed)
    base = {"embeddings.word_embeddings.weight": rng.normal(size=(7, 6)).astype(np.float32),
            "encoder.layer.0.dense.weight": rng.normal(size=(4, 5)).astype(np.float32),
            "encoder.layer.0.dense.bias": rng.normal(size=(4,)).astype(np.float32),
            "encoder.layer.0.LayerNorm.weight": np.ones(4, np.float32),
            "embeddings.position_ids": np.arange(8, dtype=np.int64)[None]}
    tuned = {name: (w + 0.01 * rng.normal(size=w.shape) * np.abs(w).mean()).astype(np.float32)
             for name, w in base.items() if w.dtype == np.float32}
    tuned["embeddings.word_embeddings.weight"][[2, 5]] = base["embeddings.word_embeddings.weight"][[2, 5]] * 0.99999
    tuned["encoder.layer.0.LayerNorm.weight"] = base["encoder.layer.0.LayerNorm.weight"].copy()
    return base, tuned


def test_applying_the_delta_gives_the_tuned_weights_within_half_a_step_per_row() -> None:
    base, tuned = tuned_pair()
    merged = apply_delta(base, encode_delta(base, tuned))
    for name, weights in tuned.items():
        change = weights - base[name]
        step = np.abs(change).max(axis=-1, keepdims=True) / LEVELS
        error = np.abs(merged[name] - weights)
        if name == "embeddings.word_embeddings.weight":
            error[[2, 5]] = 0  # left at the base: checked below
        assert (error <= step / 2 * 1.01 + 1e-6).all(), name
    assert merged["embeddings.position_ids"].dtype == np.int64  # what tuning does not train passes through


def test_unmoved_embedding_rows_and_untouched_tensors_are_not_stored() -> None:
    base, tuned = tuned_pair()
    delta = encode_delta(base, tuned)
    assert delta["embeddings.word_embeddings.weight/rows"].tolist() == [0, 1, 3, 4, 6]
    assert delta["embeddings.word_embeddings.weight/q4"].shape == (5, 3)
    assert not any(key.startswith("encoder.layer.0.LayerNorm.weight") for key in delta)
    assert delta["encoder.layer.0.dense.bias/f16"].dtype == np.float16
    assert "encoder.layer.0.dense.weight/rows" not in delta  # only embedding tables drop rows
    moved = np.linalg.norm(tuned["embeddings.word_embeddings.weight"][2] - base["embeddings.word_embeddings.weight"][2])
    assert moved < ROW_THRESHOLD * np.linalg.norm(base["embeddings.word_embeddings.weight"][2])
    merged = apply_delta(base, delta)
    assert np.array_equal(merged["embeddings.word_embeddings.weight"][[2, 5]],
                          base["embeddings.word_embeddings.weight"][[2, 5]])


@pytest.mark.parametrize("columns", [1, 2, 5, 384])
def test_four_bit_rows_round_trip_on_the_quantisation_grid(columns: int) -> None:
    rng = np.random.default_rng(columns)
    scale = np.array([0.5, 0.25, 0], np.float16)
    grid = rng.integers(-LEVELS, LEVELS + 1, size=(3, columns)).astype(np.float32)
    grid[:, 0] = LEVELS  # each row's peak sets its scale exactly
    matrix = grid * scale.astype(np.float32)[:, None]
    packed, got_scale = quantize_rows(matrix)
    assert packed.shape == (3, (columns + 1) // 2) and packed.dtype == np.uint8
    assert np.array_equal(got_scale, scale)
    assert np.array_equal(dequantize_rows(packed, got_scale, columns), matrix)


def test_a_delta_that_does_not_fit_the_base_is_a_one_line_error() -> None:
    base, tuned = tuned_pair()
    delta = encode_delta(base, tuned)
    with pytest.raises(InvalidInput, match=r"^the weight delta's tensor pooler.weight/q4 does not belong to the base"):
        apply_delta(base, {**delta, "pooler.weight/q4": delta["encoder.layer.0.dense.weight/q4"]})
    other = dict(base, **{"encoder.layer.0.dense.weight": np.zeros((3, 5), np.float32)})
    with pytest.raises(InvalidInput, match=r"^the weight delta of encoder.layer.0.dense.weight does not fit its shape \(3, 5\)$"):
        apply_delta(other, delta)
    with pytest.raises(InvalidInput, match=r"^tuned tensor encoder.layer.0.dense.weight \(4, 5\) has no counterpart"):
        encode_delta(other, tuned)
    with pytest.raises(InvalidInput, match=r"^the weight delta has encoder.layer.0.dense.weight/q4 but no"):
        apply_delta(base, {k: v for k, v in delta.items() if k != "encoder.layer.0.dense.weight/scale"})
    packed, scale = quantize_rows(np.ones((3, 5), np.float32))
    with pytest.raises(InvalidInput, match=r"^a 4-bit weight block of shape \(3, 3\) does not match \(2,\) scales"):
        dequantize_rows(packed, scale[:2], 5)
