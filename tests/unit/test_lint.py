"""Pyflakes-class errors (unused imports and variables, undefined names, f-strings without placeholders) and
unsorted imports fail the tests: ruff's F and I rules over every Python source of the repository (settings in
pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_sources_have_no_pyflakes_errors_and_sorted_imports():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "F,I", "--no-cache", "--output-format", "concise",
         "indexer", "query", "cypher", "bench", "tests", "deploy"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
