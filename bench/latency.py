"""Shared by the latency benchmarks (query.py, mcp.py): real issue texts to ask, and the percentiles of what
answering them took."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

INSTANCES = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "instances.jsonl"


def issue_texts(repo: str, count: int) -> list[str]:
    """`count` benchmark issue texts: `repo`'s own instances first, then others'."""
    rows = [json.loads(line) for line in INSTANCES.read_text().splitlines() if line.strip()]
    own = [r["problem_statement"] for r in rows if r["repo"] == repo]
    others = [r["problem_statement"] for r in rows if r["repo"] != repo]
    return (own + others)[:count]


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"n": len(values), "p50": round(statistics.median(ordered), 4), "p95": round(p95, 4),
            "max": round(ordered[-1], 4)}
