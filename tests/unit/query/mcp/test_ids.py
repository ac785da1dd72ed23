"""What an id means: the exact id, else the one node a qualified name or id tail names, else a ranked list."""

from __future__ import annotations

import pytest
from spider.query.mcp.ids import Candidate, choose, ranked, simple_names, tier


def function(node_id: str, label: str = "Function") -> Candidate:
    return Candidate(id=node_id, label=label, path=node_id.partition(":")[0])


TOTALS = [function("shop/models.py:Item.total"), function("shop/models.py:Order.total"),
          function("lib/deep/path/models.py:Order.total"), function("shop/models.py:DiscountedOrder.total")]


@pytest.mark.parametrize("wanted, names", [
    ("shop/payments.py:Receipt.render", ["Receipt.render", "render"]),
    ("Receipt.render", ["Receipt.render", "render"]),
    ("render", ["render"]),
    ("render()", ["render"]),
    ("src/Order.java:Order.add#2", ["Order.add", "add"]),
    ("shop/models.py", ["models.py", "py"]),
    ("  models.py ", ["models.py", "py"]),
    ("include/fmt/core.h:value.operator std::string_view", ["operator std::string_view", "value.operator std::string_view"]),
    ("value.operator std::string_view", ["operator std::string_view", "value.operator std::string_view"]),
])
def test_simple_names_are_what_the_name_property_of_the_node_may_be(wanted, names):
    assert simple_names(wanted) == names


@pytest.mark.parametrize("wanted, node_id, expected", [
    ("shop/models.py:Order.total", "shop/models.py:Order.total", 0),
    ("Order.total", "shop/models.py:Order.total", 1),
    ("models.py:Order.total", "shop/models.py:Order.total", 2),
    ("total", "shop/models.py:Order.total", 2),
    ("models.py", "shop/models.py", 2),
    ("total", "shop/models.py:subtotal", 3),
    ("otal", "shop/models.py:Order.total", 3),
])
def test_tiers_say_how_closely_an_id_matches(wanted, node_id, expected):
    assert tier(wanted, function(node_id)) == expected


def test_an_exact_id_is_chosen_among_any_number_of_namesakes():
    assert choose("shop/models.py:Order.total", TOTALS).id == "shop/models.py:Order.total"


def test_a_name_several_nodes_share_is_not_guessed_and_lists_the_closest_first():
    assert choose("total", TOTALS) is None
    assert choose("Order.total", TOTALS) is None  # two files have an Order.total
    assert [c.id for c in ranked("Order.total", TOTALS)] == [
        "shop/models.py:Order.total", "lib/deep/path/models.py:Order.total",  # qualified: shorter path first
        "shop/models.py:DiscountedOrder.total",  # a tail after a '.'
        "shop/models.py:Item.total"]  # only its name


def test_a_unique_closer_match_or_a_lone_candidate_is_chosen():
    assert choose("Item.total", TOTALS).id == "shop/models.py:Item.total"
    assert choose("ttl", [function("a.py:ttl_cache", "Function")]) is not None  # the only node the lookup found
    assert choose("ghost", []) is None


def test_functions_rank_before_classes_and_files_of_the_same_closeness():
    nodes = [function("a/models.py", "File"), function("a/x.py:models", "Class"), function("a/y.py:models")]
    assert [c.label for c in ranked("models", nodes)] == ["Function", "Class", "File"]
