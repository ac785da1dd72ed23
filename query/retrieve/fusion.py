"""Reciprocal-rank fusion: rankings of one snapshot's functions merged by place, not score. Dense cosines, BM25
scores and mention strengths are not on one scale; a function's place in each ranking is (Cormack et al., 2009).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Mapping, Sequence

RRF_K = 60  # the paper's constant: the first places weigh most, no single ranking decides alone


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = RRF_K,
                           weights: Sequence[Mapping[str, float]] = ()) -> list[tuple[str, float]]:
    """(id, fused score) best first, ties by id: each ranking gives a function 1 / (k + its place, from 1), times
    its weight in that ranking's `weights` where it has one (a mention by file alone: `Named.fusion_weight`)."""
    fused: dict[str, float] = defaultdict(float)
    for number, ranking in enumerate(rankings):
        weight = weights[number] if number < len(weights) else {}
        for place, node_id in enumerate(ranking, start=1):
            fused[node_id] += weight.get(node_id, 1.0) / (k + place)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))
