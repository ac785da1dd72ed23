"""The Python API as the README shows it: its example, run as written against the test services."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import spider.indexer
import spider.query

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import PYTHON

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    section = README.read_text().split("### Python API", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_indexes_a_repository_and_answers_a_query(tmp_path, neo4j_settings):
    code = readme_example()
    assert "path/to/repo" in code and len(code.strip().splitlines()) <= 10
    repo, _ = make_repo(tmp_path / f"shop-{uuid.uuid4().hex[:8]}", PYTHON.files)
    run = subprocess.run([sys.executable, "-c", code.replace("path/to/repo", str(repo))], capture_output=True,
                         text=True, env=os.environ, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["1", "2", "3", "4", "5"]
    assert {line.split()[1] for line in lines} <= PYTHON.functions | PYTHON.classes


def test_the_public_names_are_importable_and_documented():
    for package in (spider.indexer, spider.query):
        for name in package.__all__:
            assert getattr(package, name).__doc__, f"{package.__name__}.{name}"
