"""The settings of a tuning run, apart from the training code so that `spider models tune --help` needs no torch."""

from __future__ import annotations

from dataclasses import dataclass

HARD_NEGATIVES = ("none", "same-file")


@dataclass(frozen=True)
class TrainSettings:
    epochs: int = 2
    batch_size: int = 32
    learning_rate: float = 2e-5
    weight_decay: float = 0.01
    max_tokens: int = 256  # the default model's truncation, kept by the tuned model
    seed: int = 0
    frozen_layers: int = 0  # the embeddings and the lowest N transformer layers keep the base weights
    train_tokens: int | None = None  # truncation while training (None: max_tokens)
    hard_negatives: str = "none"  # or "same-file" (`negatives`)
