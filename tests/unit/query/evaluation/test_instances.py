"""Which benchmark instances `spider eval` runs: one subset, several, or every instance."""

import json

import pytest
from spider.core.errors import InvalidInput
from spider.query.evaluation.run import load_instances


@pytest.fixture
def bench(tmp_path):
    ids = ["a-1", "b-2", "c-3"]
    (tmp_path / "instances.jsonl").write_text("".join(
        json.dumps({"instance_id": i, "repo": "o/r", "language": "go", "base_commit": "0" * 40,
                    "problem_statement": "x"}) + "\n" for i in ids))
    (tmp_path / "ground_truth.jsonl").write_text("".join(
        json.dumps({"instance_id": i, "functions": [{"file": "a.go", "start_line": 1, "end_line": 2}]}) + "\n"
        for i in ids))
    (tmp_path / "subsets.json").write_text(json.dumps({"dev": ["a-1"], "dev-more": ["c-3", "a-1"]}))
    return tmp_path


def test_several_subsets_are_their_union_in_file_order(bench):
    assert [i.id for i in load_instances(bench, ("dev-more", "dev"))] == ["a-1", "c-3"]


def test_no_subset_is_every_instance(bench):
    assert [i.id for i in load_instances(bench, ())] == ["a-1", "b-2", "c-3"]


def test_an_unknown_subset_is_named(bench):
    with pytest.raises(InvalidInput, match="lacks subset 'nope'"):
        load_instances(bench, ("dev", "nope"))
