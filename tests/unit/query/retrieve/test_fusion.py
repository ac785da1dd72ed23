"""Reciprocal-rank fusion, against the formula worked by hand, and the test-code policies."""

from __future__ import annotations

import pytest
from spider.query.retrieve.fusion import reciprocal_rank_fusion
from spider.query.retrieve.tests_policy import demote_tests, which_are_tests


def test_fusion_sums_reciprocal_places_and_breaks_ties_by_id():
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["c", "a"], ["d"]], k=10)
    expected = {"a": 1 / 11 + 1 / 12, "b": 1 / 12, "c": 1 / 13 + 1 / 11, "d": 1 / 11}
    assert [i for i, _ in fused] == ["a", "c", "d", "b"]
    assert dict(fused) == pytest.approx(expected)


def test_a_function_both_rankings_hold_beats_one_only_the_first_holds():
    fused = reciprocal_rank_fusion([["solo", *map(str, range(30)), "both"], ["x", "y", "both"]])
    assert [i for i, _ in fused].index("both") < [i for i, _ in fused].index("solo")


def test_a_weighted_place_counts_its_weight_and_an_unweighted_one_counts_once():
    fused = reciprocal_rank_fusion([["a", "b"], ["b", "c"]], k=10, weights=[{}, {"b": 0.5}])
    assert dict(fused) == pytest.approx({"a": 1 / 11, "b": 1 / 12 + 0.5 / 11, "c": 1 / 12})


def test_demotion_counts_a_test_twice_as_far_down():
    scored = [("tests/test_a.py:test_one", 0.9), ("src/a.py:one", 0.8), ("src/a.py:two", 0.7),
              ("tests/test_a.py:test_two", 0.6), ("src/a.py:three", 0.5)]
    tests = which_are_tests(i for i, _ in scored)
    assert tests == {"tests/test_a.py:test_one", "tests/test_a.py:test_two"}
    # places 1..5 become 2, 2, 3, 8, 5: the first test ties the second function and goes after it
    assert [i for i, _ in demote_tests(scored, tests)] == [
        "src/a.py:one", "tests/test_a.py:test_one", "src/a.py:two", "src/a.py:three", "tests/test_a.py:test_two"]
