"""Step 6 of the query: the fixed-budget exchange (paper Eq. 1 and Prop. 1).

Admitted neighbours the baseline missed (A) take the places of the |A| lowest-ranked unprotected members of
S_K (D). Protected (R): the seeds and admitted items already in S_K. Every admitted item is placed right below
its seed, so the answer reads as "this function, and the neighbours that came with it". The change in recall
is then exactly (|A ∩ V*| − |D ∩ V*|) / m: a promotion pays only if it beats what it evicts.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Exchange:
    ranking: list[str]  # the final answer, best first
    admitted: list[str]  # A: admitted items new to S_K, by rank in the pool
    displaced: list[str]  # D: members of S_K they evicted, lowest-ranked first
    protected: list[str]  # R, in S_K order


def exchange(
    top_k: list[str],
    seeds: list[str],
    admitted_by_seed: dict[str, list[str]],
    pool_rank: dict[str, int],
    keep_budget: bool = True,
) -> Exchange:
    """Apply the exchange to S_K (`top_k`, best first).

    `admitted_by_seed` holds what the selector admitted, grouped under the seed each item was reached from;
    `pool_rank` ranks every admitted item (its place in S_N; all proposals come from S_N). With
    `keep_budget=False` (the `all` selector, the paper's ceiling) nothing is evicted and the answer grows past K.
    """
    k = len(top_k)
    in_top = set(top_k)
    seed_set = set(seeds)
    admitted_all = {item for items in admitted_by_seed.values() for item in items} - seed_set
    protected = [item for item in top_k if item in seed_set or item in admitted_all]
    new = sorted(admitted_all - in_top, key=lambda item: (pool_rank[item], item))
    if keep_budget:
        new = new[: max(k - len(protected), 0)]
    evictable = [item for item in top_k if item not in set(protected)]
    displaced = list(reversed(evictable))[: len(new)] if keep_budget else []
    kept = [item for item in top_k if item not in set(displaced)]

    below: dict[str, list[str]] = {}
    chosen = set(new)
    for seed in seeds:
        mine = [item for item in admitted_by_seed.get(seed, []) if item in chosen]
        below[seed] = sorted(set(mine), key=lambda item: (pool_rank[item], item))
        chosen -= set(mine)
    ranking: list[str] = []
    for item in kept:
        ranking.append(item)
        ranking.extend(below.get(item, []))
    return Exchange(ranking, new, displaced, protected)
