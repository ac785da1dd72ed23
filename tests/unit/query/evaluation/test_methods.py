"""`spider eval`'s method names: which first stage, test policy, selector and expansion each one means."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from spider.cli.main import main
from spider.core.errors import InvalidInput
from spider.core.schema import Rel
from spider.query.evaluation.run import (
    GRAPH_METHODS,
    RANKINGS,
    default_methods,
    merge_cross_validation,
    method_forms,
    parse_method,
)
from spider.query.results import Origin
from spider.query.retrieve.tests_policy import TestPolicy


@pytest.mark.parametrize("name, canonical, stage, graph", [
    ("der", "der", (Origin.DENSE, TestPolicy.EXCLUDE, True), False),
    ("der@exclude", "der", (Origin.DENSE, TestPolicy.EXCLUDE, True), False),
    ("sr@include", "sr@include", (Origin.BM25, TestPolicy.INCLUDE, True), False),
    ("hybrid@demote", "hybrid@demote", (Origin.HYBRID, TestPolicy.DEMOTE, True), False),
    ("dense+bm25", "dense+bm25", (Origin.HYBRID, TestPolicy.EXCLUDE, False), False),
    ("spider/learned/contains:4", "spider/learned/contains:4", (Origin.HYBRID, TestPolicy.EXCLUDE, True), True),
    ("spider-dense/oracle/invokes:2@include", "spider-dense/oracle/invokes:2@include",
     (Origin.DENSE, TestPolicy.INCLUDE, True), True),
    ("spisr/all/contains:4@exclude", "spisr/all/contains:4", (Origin.BM25, TestPolicy.EXCLUDE, True), True),
])
def test_a_method_name_says_its_first_stage_and_test_policy(name, canonical, stage, graph):
    method = parse_method(name)
    assert method.name == canonical and method.stage == stage and method.graph is graph


def test_a_graph_method_names_its_selector_and_expansion():
    method = parse_method("spider-bm25/learned/contains:4,invokes:2@demote")
    assert method.selector == "learned" and method.edges == {Rel.CONTAINS: 4, Rel.INVOKES: 2}


@pytest.mark.parametrize("name", ["hybrid/learned/contains:4", "der@sometimes", "spider/learned", "spider-x/all/contains:4",
                                  "dense+bm25/all/contains:4"])
def test_unknown_method_names_are_refused(name):
    with pytest.raises(InvalidInput):
        parse_method(name)


def test_the_default_methods_cover_every_first_stage_and_expansion():
    names = {m.name for m in default_methods()}
    assert {"der", "sr", "hybrid", "spider/learned/contains:4,invokes:2", "spider-dense/learned/invokes:2",
            "spisr/learned/contains:4", "spider/oracle/contains:4", "spider/all/invokes:2"} <= names


def test_the_help_the_error_and_the_docs_name_the_same_methods():
    with pytest.raises(InvalidInput) as refused:
        parse_method("nope")
    shown = CliRunner().invoke(main, ["eval", "--help"]).output
    assert method_forms() in str(refused.value)
    assert "".join(method_forms().split()) in "".join(shown.split())  # the help is wrapped, at hyphens too
    docs = (Path(__file__).resolve().parents[4] / "docs" / "evaluation.md").read_text()
    assert [name for name in (*RANKINGS, *GRAPH_METHODS) if f"`{name}`" not in docs] == []


def test_out_of_fold_answers_at_other_k_values_are_left_out_with_a_note(tmp_path):
    """`spider train-selector -k 5` then `spider eval` at K 5 and 20 failed with KeyError '20' (exit 70)."""
    cells = {"spider/learned-cv/contains:4": {"5": {"ids": ["a"], "hits": [[]]}}}
    (tmp_path / "learned_cv.jsonl").write_text(json.dumps({"instance_id": "i", "methods": cells}) + "\n")
    notes: list[str] = []

    def rows() -> list[dict]:
        return [{"instance_id": "i", "methods": {"der": {}}}]

    assert merge_cross_validation(rows(), tmp_path / "learned_cv.jsonl", (5, 20), notes.append) == []
    assert notes == [f"note: {tmp_path / 'learned_cv.jsonl'} lacks K 20 (rerun `spider train-selector` with -k for "
                     "each); left out"]
    merged = rows()
    assert merge_cross_validation(merged, tmp_path / "learned_cv.jsonl", (5,), notes.append) == list(cells)
    assert merged[0]["methods"] == {"der": {}, **cells}
