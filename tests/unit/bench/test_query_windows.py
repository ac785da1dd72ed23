"""bench/query_windows.py's summary on hand-made rows: the figures it reports are the ones worked out here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[3] / "bench" / "query_windows.py"
_SPEC = importlib.util.spec_from_file_location("bench_query_windows", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
query_windows = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(query_windows)


def row(instance_id: str, language: str, windows: int, der: dict, hybrid: dict) -> dict:
    out = {"instance_id": instance_id, "language": language, "windows": windows, "sr": 0.5}
    for name in query_windows.VARIANTS:
        out[f"der_{name}"], out[f"hybrid_{name}"] = der.get(name, der["first"]), hybrid.get(name, hybrid["first"])
    return out


def test_the_summary_averages_each_reading_and_counts_the_der_solved_instances_each_keeps():
    rows = [row("a", "rust", 3, {"first": 1.0, "mean": 0.5}, {"first": 1.0, "mean": 1.0, "max": 0.0}),
            row("b", "rust", 1, {"first": 0.0, "mean": 0.5}, {"first": 0.0, "mean": 1.0}),
            row("c", "c", 2, {"first": 1.0}, {"first": 0.5})]
    groups = query_windows.summary(rows)
    rust = groups["rust"]
    assert (rust["instances"], rust["long_share"], rust["der_solved"]) == (2, 0.5, 1)
    assert (rust["der_first"], rust["der_mean"], rust["hybrid_first"], rust["hybrid_mean"]) == (0.5, 0.5, 0.5, 1.0)
    assert (rust["hybrid_first_kept"], rust["hybrid_mean_kept"], rust["hybrid_max_kept"]) == (1, 1, 0)
    assert groups["all"]["der_solved"] == 2 and groups["all"]["hybrid_first_kept"] == 1
    assert "der_first_p" not in rust and 0.0 <= rust["hybrid_mean_p"] <= 1.0
    text = query_windows.report({"when": "t", "command": "c", "spider": {"sha": "abcdef0"}, "instances": 3,
                                 "model": "m", "n": 500, "windows": {"median": 2}, "groups": groups,
                                 "embed_query_ms": {"first": {50: 1.0, 90: 2.0}, "whole": {50: 3.0, 90: 4.0}},
                                 "machine": {"nproc": 2, "cpu_model": "cpu"}})
    assert "| rust | 2 | 50% | 0.500 | 0.500 | 1.000 (p " in text


def test_a_model_without_a_tokenizer_is_a_one_line_error():
    class NoTokenizer:
        name, counting_tokenizer = "m", None

    with pytest.raises(SystemExit, match="m exposes no tokenizer"):
        query_windows.counting_tokenizer(NoTokenizer())
