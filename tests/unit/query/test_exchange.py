"""The fixed-budget exchange (step 6 of the query, paper Eq. 1 / Prop. 1) on random inputs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from spider.query.exchange import exchange


@st.composite
def exchange_inputs(draw):
    n = draw(st.integers(2, 40))
    pool = [f"f{i}" for i in range(n)]
    k = draw(st.integers(1, n))
    c = draw(st.integers(1, k))
    top_k, seeds = pool[:k], pool[:c]
    admitted_by_seed: dict[str, list[str]] = {}
    for seed in seeds:
        others = [item for item in pool if item not in seeds]
        admitted_by_seed[seed] = draw(st.lists(st.sampled_from(others), unique=True, max_size=8)) if others else []
    targets = set(draw(st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=6)))
    return pool, top_k, seeds, admitted_by_seed, targets


def recall(items: list[str], targets: set[str]) -> float:
    return len(set(items) & targets) / len(targets)


@settings(max_examples=400, deadline=None)
@given(exchange_inputs())
def test_exchange_invariants_and_the_exact_recall_identity(inputs):
    pool, top_k, seeds, admitted_by_seed, targets = inputs
    rank = {item: i for i, item in enumerate(pool)}
    result = exchange(top_k, seeds, admitted_by_seed, rank)
    admitted_all = {i for items in admitted_by_seed.values() for i in items}

    assert len(result.ranking) == len(top_k) == len(set(result.ranking))  # exactly K, no duplicates
    assert set(seeds) <= set(result.ranking) and not set(seeds) & set(result.displaced)  # seeds never displaced
    assert set(result.protected) == (set(seeds) | admitted_all) & set(top_k)
    assert not set(result.protected) & set(result.displaced)
    assert len(result.admitted) == len(result.displaced) <= len(top_k) - len(result.protected)
    assert set(result.admitted) <= admitted_all - set(top_k)
    assert [rank[i] for i in result.admitted] == sorted(rank[i] for i in result.admitted)  # best-ranked first
    unprotected = [i for i in top_k if i not in result.protected]
    assert set(result.displaced) == set(unprotected[len(unprotected) - len(result.displaced):])  # lowest-ranked
    assert set(result.ranking) == (set(top_k) - set(result.displaced)) | set(result.admitted)
    m = len(targets)
    delta = recall(result.ranking, targets) - recall(top_k, targets)
    assert abs(delta - (len(set(result.admitted) & targets) - len(set(result.displaced) & targets)) / m) < 1e-12
    # every admitted item sits right below its seed (after the seed's earlier admitted items)
    for seed in seeds:
        mine = [i for i in result.admitted if i in admitted_by_seed[seed]
                and not any(i in admitted_by_seed[s] for s in seeds[: seeds.index(seed)])]
        at = result.ranking.index(seed)
        assert result.ranking[at + 1: at + 1 + len(mine)] == sorted(mine, key=rank.__getitem__)
    # kept baseline items stay in their relative order
    kept = [i for i in result.ranking if i in top_k]
    assert kept == [i for i in top_k if i in kept]


@settings(max_examples=100, deadline=None)
@given(exchange_inputs())
def test_without_budget_everything_admitted_is_added_and_nothing_displaced(inputs):
    pool, top_k, seeds, admitted_by_seed, _ = inputs
    result = exchange(top_k, seeds, admitted_by_seed, {item: i for i, item in enumerate(pool)}, keep_budget=False)
    new = {i for items in admitted_by_seed.values() for i in items} - set(top_k)
    assert result.displaced == [] and set(result.ranking) == set(top_k) | new
    assert len(result.ranking) == len(top_k) + len(new)


def test_worked_example():
    top_k = ["s1", "s2", "a", "b", "c", "d"]
    rank = {item: i for i, item in enumerate(top_k + ["x", "y", "z"])}
    # s2 admits c (already in S_K: protected) and y; s1 admits z and x; budget: 6 - |{s1, s2, c}| = 3
    result = exchange(top_k, ["s1", "s2"], {"s1": ["z", "x"], "s2": ["c", "y"]}, rank)
    assert result.admitted == ["x", "y", "z"]
    assert result.displaced == ["d", "b", "a"]
    assert result.protected == ["s1", "s2", "c"]
    assert result.ranking == ["s1", "x", "z", "s2", "y", "c"]


def test_capacity_truncation_keeps_the_best_ranked_admissions():
    top_k = ["s", "a", "b"]
    rank = {item: i for i, item in enumerate(top_k + ["x", "y", "z"])}
    result = exchange(top_k, ["s"], {"s": ["z", "y", "x"]}, rank)
    assert result.ranking == ["s", "x", "y"] and result.displaced == ["b", "a"]
