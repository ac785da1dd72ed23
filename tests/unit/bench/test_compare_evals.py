"""bench/compare_evals.py on two hand-made runs: the figures it reports are the ones worked out here."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[3] / "bench" / "compare_evals.py"
if str(_PATH.parent) not in sys.path:  # what `python3 bench/compare_evals.py` has: its _common.py and environment.py
    sys.path.append(str(_PATH.parent))
_SPEC = importlib.util.spec_from_file_location("bench_compare_evals", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
compare_evals = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(compare_evals)

HIT, MISS = [[0]], [[]]  # one result's hits at K=1: the target, nothing


def cell(hits: list) -> dict:
    return {"1": {"ids": [f"f{n}" for n in range(len(hits))], "hits": hits}}


def write_run(directory: Path, answers: dict[str, dict[str, list]], cv: dict[str, dict[str, list]] | None = None):
    """A results directory: instance a and b in Python, c in Rust, each with one target (m=1)."""
    directory.mkdir()
    language = {"a": "python", "b": "python", "c": "rust"}
    (directory / "instances.jsonl").write_text("".join(
        json.dumps({"instance_id": i, "language": language[i], "m": 1,
                    "methods": {method: cell(hits) for method, hits in methods.items()}}) + "\n"
        for i, methods in answers.items()) + '{"cut')
    if cv:
        (directory / "learned_cv.jsonl").write_text("".join(
            json.dumps({"instance_id": i, "methods": {method: cell(hits) for method, hits in methods.items()}}) + "\n"
            for i, methods in cv.items()))


def test_the_comparison_counts_recall_and_the_der_solved_instances_each_run_keeps(tmp_path):
    write_run(tmp_path / "before", {"a": {"der": HIT, "hybrid": HIT}, "b": {"der": HIT, "hybrid": MISS},
                                    "c": {"der": MISS, "hybrid": HIT}},
              cv={"a": {"spider/learned-cv/x": HIT}, "c": {"spider/learned-cv/x": MISS}})
    write_run(tmp_path / "after", {"a": {"der": HIT, "hybrid": MISS}, "b": {"der": HIT, "hybrid": HIT},
                                   "c": {"der": MISS, "hybrid": HIT}},
              cv={"a": {"spider/learned-cv/x": HIT}, "c": {"spider/learned-cv/x": HIT}})
    result = compare_evals.compare(compare_evals.load_run(tmp_path / "before", 1),
                                   compare_evals.load_run(tmp_path / "after", 1), None)
    assert sorted(result) == ["der", "hybrid", "spider/learned-cv/x"]
    python = result["hybrid"]["python"]
    assert (python["instances"], python["before"], python["after"]) == (2, 0.5, 0.5)
    assert (python["der_solved"], python["kept_before"], python["kept_after"], python["lost_after"]) == (2, 1, 1, ["a"])
    learned = result["spider/learned-cv/x"]
    assert (learned["all"]["instances"], learned["all"]["before"], learned["all"]["after"]) == (2, 0.5, 1.0)
    assert learned["rust"]["der_solved"] == 0
    text = compare_evals.report(result, 1, "t")
    assert "| python | 2 | 0.500 | 0.500 | +0.000 |" in text and "1 → 1 of 2 | a |" in text


def test_a_method_one_run_lacks_is_a_one_line_error(tmp_path):
    write_run(tmp_path / "before", {"a": {"der": HIT}})
    write_run(tmp_path / "after", {"a": {"der": HIT, "hybrid": HIT}})
    with pytest.raises(SystemExit, match="not in both runs: hybrid"):
        compare_evals.compare(compare_evals.load_run(tmp_path / "before", 1),
                              compare_evals.load_run(tmp_path / "after", 1), ["hybrid"])
    with pytest.raises(SystemExit, match="holds no instances.jsonl"):
        compare_evals.load_run(tmp_path / "nowhere", 1)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "instances.jsonl").write_text('{"instance_id": "a", "methods": []}\n[1, 2]\n')
    with pytest.raises(SystemExit, match="does not hold `spider eval` results"):
        compare_evals.load_run(tmp_path / "other", 1)


def test_labels_stand_for_the_local_results_directories_in_the_written_command(tmp_path, monkeypatch):
    for name in ("before", "after"):
        write_run(tmp_path / name, {"a": {"der": HIT}})
    out = tmp_path / "report.md"
    monkeypatch.setattr("sys.argv", ["compare_evals.py", str(tmp_path / "before"), f"{tmp_path / 'after'}/",
                                     "--labels", "RUN_A", "RUN_B", "--out", str(out)])
    compare_evals.main()
    written = json.loads(out.with_suffix(".json").read_text())
    assert written["command"].startswith("compare_evals.py RUN_A RUN_B --labels RUN_A RUN_B --out ")
    assert written["runs"] == {"before": "RUN_A", "after": "RUN_B"}
    assert "Before: RUN_A; after: RUN_B." in out.read_text()
