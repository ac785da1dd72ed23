"""Localization metrics and their statistics: matching by file + overlapping lines, Recall/Acc/MRR@K,
bootstrap confidence intervals, paired bootstrap and sign-flip permutation tests.

Ids differ between tools and overloads share names, so a retrieved function hits a target when it is in the
same file and their line spans overlap (shared/bench/README.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

RESAMPLES = 1000


@dataclass(frozen=True)
class Span:
    path: str
    start_line: int
    end_line: int

    def overlaps(self, other: "Span") -> bool:
        return self.path == other.path and self.start_line <= other.end_line and other.start_line <= self.end_line


def recall_at(hits: Sequence[Sequence[int]], m: int, k: int) -> float:
    """Share of the m targets hit by the first k results; `hits[i]` = every target index result i hits."""
    return len({t for row in hits[:k] for t in row}) / m if m else 0.0


def accuracy_at(hits: Sequence[Sequence[int]], m: int, k: int) -> float:
    """1.0 when every target is hit within the first k results."""
    return float(m > 0 and recall_at(hits, m, k) == 1.0)


def mrr_at(hits: Sequence[Sequence[int]], k: int) -> float:
    """Reciprocal rank of the first result that hits any target, 0 if none within k."""
    return next((1.0 / (rank + 1) for rank, row in enumerate(hits[:k]) if row), 0.0)


def all_hits(retrieved: Sequence[Span], targets: Sequence[Span]) -> list[list[int]]:
    """Every target index each retrieved function hits (a function can span several targets: nesting)."""
    return [[t for t, target in enumerate(targets) if span.overlaps(target)] for span in retrieved]


def bootstrap_ci(values: Sequence[float], resamples: int = RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """Percentile 95% interval of the mean."""
    data = np.asarray(values, dtype=float)
    if len(data) == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(resamples, len(data)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def paired_bootstrap_p(a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES, seed: int = 0) -> float:
    """Two-sided p-value that mean(a - b) is 0: how often the resampled mean difference crosses zero."""
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if len(diff) == 0 or not diff.any():
        return 1.0
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(resamples, len(diff)))].mean(axis=1)
    share = min((means <= 0).mean(), (means >= 0).mean())
    return float(min(1.0, 2 * share))


def sign_flip_p(a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES, seed: int = 0) -> float:
    """Two-sided permutation p-value for a paired mean difference: flip each pair's sign at random."""
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if len(diff) == 0 or not diff.any():
        return 1.0
    rng = np.random.default_rng(seed)
    signs = rng.choice([-1.0, 1.0], size=(resamples, len(diff)))
    observed = abs(diff.mean())
    extreme = (np.abs((signs * diff).mean(axis=1)) >= observed - 1e-12).sum()
    return float((extreme + 1) / (resamples + 1))
