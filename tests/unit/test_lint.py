"""Pyflakes-class errors (unused imports and variables, undefined names, f-strings without placeholders) and
unsorted imports fail the tests: ruff's F and I rules over every Python source of the repository (settings in
pyproject.toml). So do type errors: mypy over the `spider` package as it is installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("indexer", "query", "cypher")  # installed as spider.indexer, spider.query, spider.cypher


def test_the_sources_have_no_pyflakes_errors_and_sorted_imports():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "F,I", "--no-cache", "--output-format", "concise",
         "indexer", "query", "cypher", "bench", "tests", "deploy"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_package_type_checks():
    """mypy resolves `spider.indexer` imports through a `spider` folder linking to the source folders, kept beside
    its cache at a fixed place so that a second run rechecks only what changed (settings in pyproject.toml)."""
    cache = ROOT / ".mypy_cache"
    namespace = cache / "namespace" / "spider"
    namespace.mkdir(parents=True, exist_ok=True)
    for package in PACKAGES:
        link = namespace / package
        if not link.is_symlink():
            link.symlink_to(ROOT / package, target_is_directory=True)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache),
         *(option for package in PACKAGES for option in ("-p", f"spider.{package}"))],
        cwd=namespace.parent, capture_output=True, text=True, env={**os.environ, "MYPYPATH": str(namespace.parent)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
