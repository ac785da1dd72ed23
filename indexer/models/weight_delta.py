"""A tuned model as a compact difference from its base, so a tuned model can ship inside the package.

Fine-tuning moves each weight by about 1% of its size. The difference of a matrix is stored as 4-bit integers
(two per byte) with one float16 scale per row (the row's largest absolute change / 7); vectors and other 1-D
tensors as float16. Rows of an embedding table that tuning barely moved (relative change under ROW_THRESHOLD:
tokens the training never saw, moved by weight decay alone) are left out and stay at the base's values. For
all-MiniLM-L6-v2 this is 7.5 MB against 45 MB of float16 weights, and reproduces the tuned model's vectors at
cosine >= 0.99998 (bench/results/tuning_shipped.md).

Keys of the delta file: `NAME/q4` (uint8, rows x ceil(columns / 2)) and `NAME/scale` (float16, rows) for a
matrix, plus `NAME/rows` (int32) where only some rows are stored; `NAME/f16` for any other tensor. A tensor
the tuning did not change has no key.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
from spider.core.errors import InvalidInput

ROW_THRESHOLD = 1e-3  # an embedding row whose change is under this share of its norm is left at the base's value
LEVELS = 7  # 4-bit signed values -7..7, stored as 1..15


def encode_delta(base: Mapping[str, np.ndarray], tuned: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The delta tensors that turn base into (nearly) tuned. Every tuned tensor must exist in base, same shape."""
    delta: dict[str, np.ndarray] = {}
    for name, weights in sorted(tuned.items()):
        if name not in base or base[name].shape != weights.shape:
            raise InvalidInput(f"tuned tensor {name} {weights.shape} has no counterpart of that shape in the base")
        start = base[name].astype(np.float32)
        change = weights.astype(np.float32) - start
        if not change.any():
            continue
        if change.ndim != 2:
            delta[f"{name}/f16"] = change.astype(np.float16)
            continue
        rows = np.arange(change.shape[0], dtype=np.int32)
        if "embeddings" in name:
            moved = np.linalg.norm(change, axis=1) > ROW_THRESHOLD * np.maximum(np.linalg.norm(start, axis=1), 1e-12)
            rows = rows[moved]
            delta[f"{name}/rows"] = rows
        q4, scale = quantize_rows(change[rows])
        delta[f"{name}/q4"], delta[f"{name}/scale"] = q4, scale
    return delta


def apply_delta(base: Mapping[str, np.ndarray], delta: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """base's tensors as float32 with delta added; a delta that does not fit base is a one-line error."""
    merged = {name: weights.astype(np.float32) if weights.dtype.kind == "f" else weights.copy()
              for name, weights in base.items()}
    for key in delta:
        name, _, part = key.rpartition("/")
        if part not in ("f16", "q4", "scale", "rows") or name not in merged:
            raise InvalidInput(f"the weight delta's tensor {key} does not belong to the base model")
    for key, change in delta.items():
        name, _, part = key.rpartition("/")
        if part == "f16":
            _add(merged, name, slice(None), change.astype(np.float32))
        elif part == "q4":
            rows = delta.get(f"{name}/rows")
            scale = delta.get(f"{name}/scale")
            if scale is None:
                raise InvalidInput(f"the weight delta has {key} but no {name}/scale")
            columns = merged[name].shape[-1] if merged[name].ndim == 2 else -1
            _add(merged, name, slice(None) if rows is None else rows.astype(np.int64),
                 dequantize_rows(change, scale, columns))
    return merged


def quantize_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """matrix as 4-bit values packed two per byte (low nibble first) and one float16 scale per row."""
    peak = np.abs(matrix).max(axis=1)
    scale = (peak / LEVELS).astype(np.float16)
    divisor = np.where(scale > 0, scale.astype(np.float32), 1.0)[:, None]
    values = np.clip(np.rint(matrix / divisor), -LEVELS, LEVELS).astype(np.int16) + LEVELS + 1  # 1..15
    if values.shape[1] % 2:
        values = np.pad(values, ((0, 0), (0, 1)), constant_values=LEVELS + 1)  # a zero change
    packed = (values[:, 0::2] | (values[:, 1::2] << 4)).astype(np.uint8)
    return packed, scale


def dequantize_rows(packed: np.ndarray, scale: np.ndarray, columns: int) -> np.ndarray:
    """The float32 rows quantize_rows packed, columns wide."""
    if packed.ndim != 2 or scale.shape != (packed.shape[0],) or not 0 < columns <= 2 * packed.shape[1]:
        raise InvalidInput(f"a 4-bit weight block of shape {packed.shape} does not match {scale.shape} scales "
                           f"and {columns} columns")
    values = np.empty((packed.shape[0], packed.shape[1] * 2), dtype=np.float32)
    values[:, 0::2] = packed & 0x0F
    values[:, 1::2] = packed >> 4
    return (values[:, :columns] - (LEVELS + 1)) * scale.astype(np.float32)[:, None]


def _add(merged: dict[str, np.ndarray], name: str, rows: slice | np.ndarray, change: np.ndarray) -> None:
    target = merged[name]
    try:
        target[rows] += change
    except (IndexError, ValueError):
        raise InvalidInput(f"the weight delta of {name} does not fit its shape {target.shape}") from None
