"""Hostile repository contents and names: file names that are not UTF-8, UTF-16 sources, corrupted objects,
manifest URLs that try to run programs. Each is indexed, skipped with its reason or refused in one line."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.gitrepo import make_repo
from tests.integration.test_cli import index_json, run_spider, succeeded, unique_name

pytestmark = pytest.mark.integration

NOT_UTF8 = b"\xff\xfe"


SKIPPED_AND_WARNED = {
    "app/good.py": "def good():\n    return 1\n",
    "app/blob.py": b"def hidden():\n    return 1\n\0\0\x01",
    "dist/app.min.js": "function m(){return 1}\n",
    "app/broken.py": "def broken(:\n    return 1\n\n\ndef fine():\n    return 2\n",
    "app/empty.py": "# nothing here\n",
}


def test_json_lists_the_skipped_files_and_verbose_prints_them(tmp_path):
    root, _ = make_repo(tmp_path / "lists", SKIPPED_AND_WARNED)
    name = unique_name()

    summary = index_json(root, name, "--no-embed")
    verbose = succeeded(run_spider("index", root, "--repo", unique_name(), "--no-embed", "--verbose"))

    assert summary["skipped_files"] == [
        {"path": "app/blob.py", "reason": "binary"}, {"path": "app/empty.py", "reason": "no classes, functions or imports"},
        {"path": "dist/app.min.js", "reason": "minified"}]
    assert summary["warned_files"] == [{"path": "app/broken.py", "warnings": ["syntax errors"]}]
    lines = verbose.splitlines()
    listed = lines[lines.index("  skipped files:"):]
    assert listed == ["  skipped files:", "    app/blob.py: binary", "    app/empty.py: no classes, functions or imports",
                      "    dist/app.min.js: minified", "  files parsed with warnings:",
                      "    app/broken.py: syntax errors"]
    assert lines[1].startswith("  files: 2 parsed, 3 skipped (")  # the summary lines stay as they were
    again = json.loads(succeeded(run_spider("index", root, "--repo", name, "--json", "--no-embed")))
    assert again["already_indexed"] is True and again["skipped_files"] is None  # not kept with the snapshot
