"""What the first stage does with test code (each language's definition, `is_test_code`): a fix almost never
edits tests, yet with a general-purpose embedding model they fill half of a dense top 20.

exclude: tests are not ranked at all; demote: a test counts as DEMOTION times as far down as it ranked;
include: the ranking as retrieved.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Iterable

from spider.indexer.languages import is_test_code

DEMOTION = 2


class TestPolicy(StrEnum):
    __test__ = False  # not a pytest class, whatever its name says

    EXCLUDE = "exclude"
    DEMOTE = "demote"
    INCLUDE = "include"


TEST_POLICIES = tuple(policy.value for policy in TestPolicy)  # as --tests spells them
DEFAULT_TESTS = TestPolicy.EXCLUDE


def which_are_tests(node_ids: Iterable[str]) -> frozenset[str]:
    """The test functions among `node_ids`."""
    return frozenset(node_id for node_id in node_ids if is_test_code(node_id))


def demote_tests(scored: list[tuple[str, float]], tests: frozenset[str]) -> list[tuple[str, float]]:
    """The ranking with each test function's place multiplied by DEMOTION (ties: the test goes second)."""
    key = {node_id: (place * (DEMOTION if node_id in tests else 1), node_id in tests)
           for place, (node_id, _) in enumerate(scored, start=1)}
    return sorted(scored, key=lambda item: key[item[0]])
