"""bench/function_windows.py's report on hand-made rows: the figures it reports are the ones worked out here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[3] / "bench" / "function_windows.py"
_SPEC = importlib.util.spec_from_file_location("bench_function_windows", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
function_windows = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(function_windows)


def row(instance_id: str, language: str, functions: int, windows: int, long_targets: int, der: list[float],
        hybrid: list[float]) -> dict:
    out = {"instance_id": instance_id, "language": language, "functions": functions, "windows": windows,
           "long_targets": long_targets, "sr": 0.5}
    for name, d, h in zip(function_windows.VARIANTS, der, hybrid):
        out[f"der_{name}"], out[f"hybrid_{name}"] = d, h
    return out


def test_the_report_counts_vectors_per_function_and_compares_each_cap_with_the_first_window():
    rows = [row("a", "c", 10, 30, 2, [1.0, 1.0, 1.0, 0.5], [1.0, 1.0, 0.0, 1.0]),
            row("b", "c", 10, 10, 0, [0.0, 0.0, 0.5, 0.5], [0.0, 1.0, 1.0, 1.0]),
            row("c", "go", 4, 6, 1, [0.5] * 4, [0.5] * 4)]
    assert function_windows.vectors_per_function(rows) == {"all": 1.83, "c": 2.0, "go": 1.5}
    groups = function_windows.summary(rows, function_windows.VARIANTS, lambda r: r["long_targets"] > 0)
    c = groups["c"]
    assert (c["instances"], c["long_share"], c["der_solved"]) == (2, 0.5, 1)
    assert (c["hybrid_w1"], c["hybrid_w2"], c["der_w8"]) == (0.5, 1.0, 0.5)
    assert (c["hybrid_w1_kept"], c["hybrid_w4_kept"], c["hybrid_w8_kept"]) == (1, 0, 1)
    text = function_windows.report({"when": "t", "command": "c", "spider": {"sha": "abcdef0"}, "instances": 3,
                                    "model": "m", "n": 500, "groups": groups,
                                    "vectors_per_function": function_windows.vectors_per_function(rows),
                                    "machine": {"nproc": 2, "cpu_model": "cpu"}})
    assert "against 1): all 1.83, c 2.0, go 1.5." in text
    assert "| c | 2 | 50% | 0.500 | 0.500 | 1.000 (p " in text
    assert "| c | 1 | 1 | 1 | 0 | 1 |" in text
