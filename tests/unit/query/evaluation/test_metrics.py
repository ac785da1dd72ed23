"""Evaluation metrics against hand-computed cases; matching by file + overlapping lines (overloads, nesting)."""

from __future__ import annotations

import pytest
from spider.query.evaluation.metrics import (
    Span,
    accuracy_at,
    all_hits,
    bootstrap_ci,
    mrr_at,
    paired_bootstrap_p,
    recall_at,
    sign_flip_p,
)
from spider.query.evaluation.summary import exchange_quantities, summarize


def test_overloads_are_told_apart_by_their_lines():
    targets = [Span("A.java", 10, 14)]  # the second overload of Foo.bar
    retrieved = [Span("A.java", 3, 8), Span("A.java", 10, 14), Span("B.java", 10, 14)]
    assert all_hits(retrieved, targets) == [[], [0], []]


def test_an_outer_function_overlaps_its_nested_target_and_one_result_can_hit_two_targets():
    targets = [Span("m.py", 5, 7), Span("m.py", 9, 12)]  # two nested functions inside outer (1-20)
    assert all_hits([Span("m.py", 1, 20), Span("m.py", 12, 12), Span("m.py", 8, 8)], targets) == [[0, 1], [1], []]


def test_recall_accuracy_mrr_by_hand():
    hits = [[], [1], [], [0], [1]]  # 3 targets; target 2 never retrieved
    assert recall_at(hits, 3, 1) == 0
    assert recall_at(hits, 3, 2) == pytest.approx(1 / 3)
    assert recall_at(hits, 3, 5) == pytest.approx(2 / 3)
    assert accuracy_at(hits, 3, 5) == 0.0 and accuracy_at([[0], [1, 2]], 3, 2) == 1.0
    assert mrr_at(hits, 5) == 0.5 and mrr_at(hits, 1) == 0.0 and mrr_at([[0]], 1) == 1.0


def test_statistics():
    low, high = bootstrap_ci([0.0, 1.0] * 50)
    assert 0.39 < low < 0.5 < high < 0.61
    assert bootstrap_ci([0.3] * 10) == pytest.approx((0.3, 0.3))
    better, base = [1.0] * 30, [0.0] * 30
    assert paired_bootstrap_p(better, base) == 0.0 and sign_flip_p(better, base) < 0.01
    assert paired_bootstrap_p(base, base) == 1.0 and sign_flip_p(base, base) == 1.0
    noisy = [1.0, 0.0] * 15
    assert sign_flip_p(noisy, [0.0, 1.0] * 15) > 0.5  # differences +1/-1 in equal numbers


def row(instance: str, language: str, m: int, methods: dict) -> dict:
    return {"instance_id": instance, "language": language, "m": m, "unmatched_targets": [], "methods": methods}


def test_summary_exchange_quantities_and_gain_share():
    rows = [
        row("a", "python", 1, {
            "der": {"20": {"hits": [[], []]}},
            "spider/learned/contains:4": {"20": {"hits": [[0], []], "admitted": 2, "admitted_hits": 1,
                                                  "displaced": 2, "displaced_hits": 0}},
            "spider/oracle/contains:4": {"20": {"hits": [[0], []], "admitted": 1, "admitted_hits": 1,
                                                 "displaced": 1, "displaced_hits": 0}},
        }),
        row("b", "java", 2, {
            "der": {"20": {"hits": [[0], []]}},
            "spider/learned/contains:4": {"20": {"hits": [[0], []], "admitted": 0, "admitted_hits": 0,
                                                  "displaced": 0, "displaced_hits": 0}},
            "spider/oracle/contains:4": {"20": {"hits": [[0], [1]], "admitted": 1, "admitted_hits": 1,
                                                 "displaced": 1, "displaced_hits": 0}},
        }),
    ]
    methods = ["der", "spider/learned/contains:4", "spider/oracle/contains:4"]
    summary = summarize(rows, methods, (20,))
    overall = summary["groups"]["all"]["methods"]
    assert overall["der"]["20"]["recall"]["mean"] == pytest.approx(0.25)  # (0 + 1/2) / 2
    assert overall["spider/oracle/contains:4"]["20"]["recall"]["mean"] == pytest.approx(1.0)
    assert summary["groups"]["java"]["instances"] == 1
    assert exchange_quantities(rows, "spider/learned/contains:4", 20) == pytest.approx(
        {"mean_admitted": 1.0, "eta": 0.5, "tau": 0.0, "mean_proposals": 0.0, "tokens": 0})
    # learned gains 0.5 over DER (0.25 -> 0.75), the oracle 0.75 (-> 1.0): two thirds of the oracle's gain
    assert summary["gain_captured"]["spider/learned/contains:4"]["oracle"]["20"] == pytest.approx(2 / 3)
