"""Batches for in-batch negatives (`indexer.tuning.batches`): no batch repeats a message or a function text."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from spider.indexer.models.tuning.batches import Pair, batches_without_repeats

PAIRS = st.lists(st.builds(Pair, st.sampled_from("abcdefgh"), st.sampled_from("pqrstuvwxyz")), max_size=60)


@given(PAIRS, st.integers(min_value=2, max_value=8), st.integers(min_value=0, max_value=3))
def test_no_batch_repeats_a_message_or_a_text_and_no_pair_is_used_twice(pairs, size, seed) -> None:
    batches = batches_without_repeats(pairs, size, random.Random(seed))
    used = [i for batch in batches for i in batch]
    assert len(used) == len(set(used))
    for batch in batches:
        assert 2 <= len(batch) <= size
        assert len({pairs[i].message for i in batch}) == len(batch)
        assert len({pairs[i].text for i in batch}) == len(batch)


def test_distinct_pairs_all_fill_whole_batches_but_the_last() -> None:
    pairs = [Pair(f"message {i}", f"text {i}") for i in range(10)]
    batches = batches_without_repeats(pairs, 4, random.Random(0))
    assert sorted(len(b) for b in batches) == [2, 4, 4]
    assert sorted(i for b in batches for i in b) == list(range(10))


def test_the_pairs_of_one_commit_go_to_different_batches() -> None:
    pairs = [Pair("fix the parser", f"parse_{i}") for i in range(3)] + [Pair(f"other {i}", f"t{i}") for i in range(9)]
    batches = batches_without_repeats(pairs, 4, random.Random(1))
    assert sum(len(b) for b in batches) == 12
    assert all(sum(1 for i in b if i < 3) <= 1 for b in batches)


def test_a_pair_that_cannot_be_contrasted_is_dropped() -> None:
    pairs = [Pair("the only message", f"text {i}") for i in range(5)]
    assert batches_without_repeats(pairs, 4, random.Random(0)) == []


def test_the_seed_decides_the_batches() -> None:
    pairs = [Pair(f"m{i % 7}", f"t{i}") for i in range(40)]
    first = batches_without_repeats(pairs, 8, random.Random(3))
    assert first == batches_without_repeats(pairs, 8, random.Random(3))
    assert first != batches_without_repeats(pairs, 8, random.Random(4))
