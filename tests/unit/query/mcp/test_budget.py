"""The token budget: whole items kept from the front of a ranked list while they fit, the rest counted."""

from __future__ import annotations

import pytest
from pydantic import BaseModel
from spider.query.mcp.budget import COPIES, Dropped, as_json, bounded, elided, estimate_tokens, fitting, received_tokens


class Listing(BaseModel):
    title: str
    items: list[str]
    dropped: Dropped | None = None


@pytest.mark.parametrize("costs, budget, kept", [
    ([], 10, 0), ([5, 5, 5], 15, 3), ([5, 5, 5], 14, 2), ([20, 1, 1], 10, 0), ([1, 1, 20, 1], 10, 2),
    ([3], 0, 0),
])
def test_fitting_keeps_the_leading_items_that_fit_together(costs, budget, kept):
    assert fitting(costs, budget) == kept


def test_a_small_enough_answer_is_unchanged():
    answer = Listing(title="t", items=["a" * 40] * 3)
    assert bounded(answer, "items", 1_000, "items") is answer


def test_a_long_answer_drops_whole_items_from_the_end_and_says_how_many():
    items = [f"{i:03d}" + "x" * 396 for i in range(100)]  # ~100 tokens each
    answer = bounded(Listing(title="t", items=items), "items", 1_000, "rows")
    kept = len(answer.items)
    assert 0 < kept < 10 and answer.items == items[:kept]
    assert (answer.dropped.items, answer.dropped.kept) == (100 - kept, kept)
    assert answer.dropped.note.startswith(f"{100 - kept} of 100 rows dropped whole to stay within max_tokens=1000")
    assert received_tokens(answer) <= 1_000


def test_a_budget_too_small_for_any_item_keeps_none_and_still_answers():
    answer = bounded(Listing(title="t", items=["y" * 4000]), "items", 500, "results")
    assert answer.items == [] and answer.dropped.items == 1 and received_tokens(answer) <= 500


def test_tokens_are_estimated_on_the_compact_json_the_client_receives_in_each_copy():
    assert estimate_tokens("abcd") == 2  # '"abcd"': six characters
    assert as_json(Listing(title="", items=["a"])) == '{"title":"","items":["a"],"dropped":null}'
    assert received_tokens(Listing(title="", items=[])) == COPIES * -(-len(as_json(Listing(title="", items=[]))) // 4)


def test_many_small_items_fit_with_the_commas_between_them():
    items = ["x" * 10] * 1_000  # 12 characters with its quotes: 3 tokens, but 13 with the comma before it
    answer = bounded(Listing(title="t", items=items), "items", 2_000, "items")
    assert answer.dropped.kept > 0 and received_tokens(answer) <= 2_000


@pytest.mark.parametrize("length", [0, 200, 201, 2_000, 200_000])
def test_a_long_value_repeated_back_is_elided_to_its_head_and_tail(length):
    value = "h" + "x" * max(0, length - 2) + "t" if length else ""
    shown = elided(value)
    assert len(shown) <= 200 and shown[:1] == value[:1] and shown[-1:] == value[-1:]
    assert (shown == value) == (length <= 200)
    if length > 200:
        assert f"…[{length - 160:,} characters]…" in shown
