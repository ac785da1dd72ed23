"""Hard negatives from the same file (`indexer.tuning.negatives`): a sibling the commit did not change, and a mask
for the negatives another message's commit did change."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from spider.indexer.models.tuning.batches import Pair
from spider.indexer.models.tuning.negatives import false_negative_mask, same_file_negatives, touched_functions


def pair(commit: str, function: str, repo: str = "org/app") -> Pair:
    return Pair(f"message of {commit}", f"{function} as before {commit}", f"{repo} {commit}", f"{repo} {function}")


def test_a_negative_is_a_function_of_the_same_file_the_commit_did_not_change() -> None:
    pairs = [pair("c1", "a.py:f"), pair("c1", "a.py:g"), pair("c2", "a.py:h"), pair("c3", "b.py:k"),
             pair("c4", "a.py:g")]
    negatives = same_file_negatives(pairs, random.Random(0))
    assert negatives[0].function == negatives[1].function == "org/app a.py:h"  # f and g changed together in c1
    assert negatives[2].function in {"org/app a.py:f", "org/app a.py:g"}
    assert negatives[3] is None  # b.py has no other function in the pairs
    assert negatives[4].function in {"org/app a.py:f", "org/app a.py:h"}


def test_a_qualified_name_with_colons_stays_in_its_file() -> None:
    pairs = [pair("c1", "fmt/core.h:value.operator std::string_view"), pair("c2", "fmt/core.h:value.format")]
    negatives = same_file_negatives(pairs, random.Random(0))
    assert [n.function for n in negatives] == ["org/app fmt/core.h:value.format",
                                               "org/app fmt/core.h:value.operator std::string_view"]


def test_a_file_of_the_same_path_in_another_repository_gives_no_negative() -> None:
    negatives = same_file_negatives([pair("c1", "a.py:f", "org/one"), pair("c2", "a.py:g", "org/two")],
                                    random.Random(0))
    assert negatives == [None, None]


COMMITS = st.lists(st.tuples(st.sampled_from("abcdef"), st.sampled_from(["x.py:f", "x.py:g", "x.py:h", "y.py:f",
                                                                        "y.py:g"])), max_size=30)


@given(COMMITS, st.integers(min_value=0, max_value=3))
def test_negatives_never_name_a_function_their_commit_changed_and_repeat_with_the_seed(rows, seed) -> None:
    pairs = [pair(commit, function) for commit, function in rows]
    touched = touched_functions(pairs)
    negatives = same_file_negatives(pairs, random.Random(seed))
    assert negatives == same_file_negatives(pairs, random.Random(seed))
    for p, negative in zip(pairs, negatives):
        if negative is not None:
            assert negative.function not in touched[p.commit]
            assert negative.function.rpartition(":")[0] == p.function.rpartition(":")[0]


def test_the_mask_marks_negatives_that_another_message_s_commit_changed() -> None:
    pairs = [pair("c1", "a.py:f"), pair("c1", "a.py:g"), pair("c2", "a.py:h")]
    batch = [pairs[0], pairs[2]]  # c1's other pair is never in its batch (one message per batch)
    negatives = [pair("c2", "a.py:h"), pair("c3", "a.py:g")]  # h for c1's pair; g (changed by c1) for c2's
    assert false_negative_mask(batch, negatives, touched_functions(pairs)) == [[False, True], [True, False]]
