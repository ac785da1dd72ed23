"""bench/selector_features.py's extra candidate features: what the whole query and the repository's history say
about a candidate must be computed as its docstring says, or the bench measures other signals than it reports."""

from __future__ import annotations

import importlib.util
import math
import subprocess
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[3] / "bench" / "selector_features.py"
_SPEC = importlib.util.spec_from_file_location("bench_selector_features", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
features = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(features)

ROW = {"top": ["a.py:s1", "a.py:s2", "b.py:C.s3", "b.py:C.x", "d.py:g"],
       "seeds": ["a.py:s1", "a.py:s2", "b.py:C.s3"],
       "candidates": [{"id": "b.py:C.m", "seed": "a.py:s1"}, {"id": "b.py:C.m", "seed": "b.py:C.s3"},
                      {"id": "c.py:f", "seed": "a.py:s2"}]}


def test_query_features_count_the_seeds_files_and_classes_around_a_candidate():
    by_class, lone = features.query_features(ROW)[0], features.query_features(ROW)[2]
    assert by_class == pytest.approx([math.log(2), 0.0, 1 + 1 / 3, math.log1p(2), math.log1p(2), math.log(3)])
    assert lone == pytest.approx([0.0, math.log(2), 1 / 2, 0.0, 0.0, math.log(features.TOP_FILES + 1)])


def test_history_features_count_the_commits_a_candidate_s_file_shares():
    commits = [{"a.py", "b.py"}, {"b.py"}, {"c.py", "a.py"}, set()]  # newest first
    with_seed_a = features.history_features(ROW, commits)[0]
    assert with_seed_a == pytest.approx([math.log1p(2), math.log1p(1), 1 / 2, math.log1p(1), 0.0])
    never = features.history_features({**ROW, "candidates": [{"id": "e.py:h", "seed": "a.py:s1"}]}, commits)[0]
    assert never == pytest.approx([0.0, 0.0, 0.0, 0.0, math.log1p(len(commits) + 1)])


def repository(path: Path):
    """An empty git repository at `path`, and a function running git in it."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, check=True).stdout

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    return git


def test_commits_before_leave_out_later_and_sweeping_commits(tmp_path):
    git = repository(tmp_path)
    for n, files in enumerate((["a.py"], [f"f{i}.py" for i in range(features.SWEEPING + 1)], ["a.py", "b.py"], ["c.py"])):
        for name in files:
            (tmp_path / name).write_text(f"commit {n}\n")
        git("add", *files)
        git("commit", "-q", "-m", "change")
    base = git("rev-parse", "HEAD~1").strip()
    assert features.commits_before(tmp_path / ".git", base) == ([{"a.py", "b.py"}, set(), {"a.py"}], True)


def test_commits_before_keep_what_git_read_where_the_snapshot_lacks_older_objects(tmp_path):
    git = repository(tmp_path)
    for n, name in enumerate(("a.py", "b.py", "c.py")):
        (tmp_path / name).write_text(f"commit {n}\n")
        git("add", name)
        git("commit", "-q", "-m", "change")
    first_tree = git("rev-parse", "HEAD~2^{tree}").strip()
    (tmp_path / ".git" / "objects" / first_tree[:2] / first_tree[2:]).unlink()  # as a partial snapshot lacks it
    commits, whole = features.commits_before(tmp_path / ".git", "HEAD")
    assert not whole and commits == [{"c.py"}]  # the second commit is diffed against the tree that is gone


def test_component_features_read_the_dense_and_bm25_places_and_cosines_of_the_same_first_stage():
    fusion_row = {"rankings": [["a.py:s1", "b.py:C.m"], ["b.py:C.m", "c.py:f", "x.py:y"], []],
                  "ids": ["a.py:s1", "b.py:C.m", "c.py:f", "x.py:y"],
                  "x": [[0, 0, 0, 0.8], [0, 0, 0, 0.5], [0, 0, 0, 0.0], [0, 0, 0, 0.0]]}
    rows = features.component_features(ROW, fusion_row)
    assert rows[0] == pytest.approx([math.log(2), 0.0, 0.5, 0.3, 1.0])
    assert rows[2] == pytest.approx([math.log(4), math.log(2), 0.0, 0.0, 0.0])  # absent from the dense top-n: n + 1


def test_an_input_lacking_instances_is_one_line_naming_it(tmp_path):
    with pytest.raises(SystemExit, match=r"dump.jsonl lacks 1 of the instances, e.g. b$"):
        features.require_every({"a", "b"}, {"a": {}}, tmp_path / "dump.jsonl")
    features.require_every({"a"}, {"a": {}, "c": {}}, tmp_path / "dump.jsonl")  # more is fine
