"""Pyflakes-class errors (unused imports and variables, undefined names, f-strings without placeholders) and
unsorted imports fail the tests: ruff's F and I rules over every Python source of the repository (settings in
pyproject.toml). So do type errors: mypy over the `spider` package as it is installed."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]


def test_the_sources_have_no_pyflakes_errors_and_sorted_imports():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "F,I", "--no-cache", "--output-format", "concise",
         "indexer", "query", "cypher", "bench", "tests", "deploy"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def installed_layout(namespace: Path) -> None:
    """The `spider` folder as installed, made of links: a package's folder links each of its entries except the
    folders mapped to a package of their own (indexer/core/ is spider.core only), so mypy sees each module once."""
    sources = {ROOT / directory for directory in PACKAGE_DIRS.values()}
    for package, directory in PACKAGE_DIRS.items():
        folder = namespace.parent.joinpath(*package.split("."))
        folder.mkdir(parents=True, exist_ok=True)
        for entry in (ROOT / directory).iterdir():
            link = folder / entry.name
            if entry in sources or entry.name in {"__pycache__", ".mypy_cache"} or link.is_symlink():
                continue
            link.symlink_to(entry, target_is_directory=entry.is_dir())


def test_the_package_type_checks():
    """mypy resolves `spider` imports through a `spider` folder linking to the source folders, kept beside its
    cache at a fixed place so that a second run rechecks only what changed (settings in pyproject.toml)."""
    cache = ROOT / ".mypy_cache"
    namespace = cache / "installed" / "spider"
    installed_layout(namespace)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache),
         *(option for package in PACKAGE_DIRS for option in ("-p", package))],
        cwd=namespace.parent, capture_output=True, text=True, env={**os.environ, "MYPYPATH": str(namespace.parent)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
