"""One repository full of files spider must skip or parse with a warning, indexed once by `spider index` (run in
this process).

Nothing may crash, every bad file is counted under its reason, and the good files around them are indexed whole.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from spider.indexer.parse.facts import NESTED_TOO_DEEP

from tests.fixtures.gitrepo import make_repo
from tests.integration.helpers import IN_SNAPSHOT, invoke_index_json, row_set, unique_name

PASSWD = Path("/etc/passwd")
OUTSIDE_MARKER = "OUTSIDE_THE_REPOSITORY_7f3a"
DEPTH = 600  # nested defs: deeper than Python's recursion limit would allow a recursive walk


def deeply_nested(depth: int) -> str:
    return "".join(" " * i + f"def level{i}():\n" for i in range(depth)) + " " * depth + "return 0\n"


GOOD = {
    "app/core.py": "from app.util import helper\n\n\ndef run():\n    return helper(2)\n",
    "app/util.py": "def helper(x):\n    return x * 2\n",
    "web/main.js": "function start() {\n  return 1;\n}\n",
}
WARNED = {
    "app/latin1.py": b"# caf\xe9 (latin-1, not UTF-8)\ndef good():\n    return 1\n",
    "app/broken.py": "def broken(:\n    return 1\n\n\ndef fine():\n    return 2\n",
}
SKIPPED = {
    "app/blob.py": b"def hidden():\n    return 1\n\0\0\x01\x02\xff",  # binary
    "web/huge.js": "var a=1;" * 1_250_000,  # 10 MB on one line: too large
    "web/packed.js": "var b=2;" * 75_000,  # 600 KB on one line: minified
    "dist/app.min.js": "function m(){return 1}\n",  # minified by name
    "node_modules/left-pad/index.js": "module.exports = function leftPad(s) {\n  return s;\n};\n",  # vendored
}
OTHER = {"notes.txt": "plain text\n", "README.md": "# bad input\n"}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, neo4j_settings) -> tuple[str, str, dict]:
    """(repo name, commit, `spider index --json` output) of the bad-input repository."""
    tmp = tmp_path_factory.mktemp("bad-input")
    outside = tmp / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(f"def secret():\n    return '{OUTSIDE_MARKER}'\n")
    root = tmp / "repo"
    root.mkdir()
    os.symlink(PASSWD, root / "evil.py")
    os.symlink(outside, root / "linked")
    root, sha = make_repo(root, {**GOOD, **WARNED, **SKIPPED, **OTHER})
    name = unique_name()
    return name, sha, invoke_index_json(root, name)


def test_every_bad_file_is_counted_under_its_reason(indexed):
    _, sha, summary = indexed

    assert summary["snapshot"] == sha and summary["already_indexed"] is False
    assert summary["skipped"] == {"binary": 1, "too large": 1, "minified": 2, "vendored": 1, "symlink": 2}
    assert summary["warnings"] == {"invalid UTF-8": 1, "syntax errors": 1}
    assert summary["files_parsed"] == len(GOOD) + len(WARNED) == 5
    assert summary["other_files"] == len(OTHER) == 2
    assert summary["nodes"] == {"Directory": 3, "File": 5, "Function": 6}
    assert summary["relationships"] == {"CONTAINS": 13, "INVOKES": 1, "IMPORTS": 1}


def test_good_files_around_the_bad_ones_are_indexed_whole(indexed, store):
    repo, sha, _ = indexed

    nodes = row_set(store, f"{IN_SNAPSHOT} RETURN labels(n)[0], n.id, n.start_line, n.end_line",
                    repo=repo, snapshot=sha)
    edges = row_set(store, f"{IN_SNAPSHOT} MATCH (n)-[r]->(b) WHERE type(r) <> 'CONTAINS' "
                           "AND r.since <= v.seq < r.until RETURN type(r), n.id, b.id", repo=repo, snapshot=sha)

    assert nodes == {
        ("Directory", ".", None, None), ("Directory", "app", None, None), ("Directory", "web", None, None),
        ("File", "app/core.py", 1, 5), ("File", "app/util.py", 1, 2), ("File", "web/main.js", 1, 3),
        ("File", "app/latin1.py", 1, 3), ("File", "app/broken.py", 1, 6),
        ("Function", "app/core.py:run", 4, 5), ("Function", "app/util.py:helper", 1, 2),
        ("Function", "web/main.js:start", 1, 3), ("Function", "app/latin1.py:good", 2, 3),
        ("Function", "app/broken.py:broken", 1, 2), ("Function", "app/broken.py:fine", 5, 6),
    }
    assert edges == {("INVOKES", "app/core.py:run", "app/util.py:helper"),
                     ("IMPORTS", "app/core.py", "app/util.py:helper")}


def test_files_with_warnings_keep_their_code(indexed, store):
    repo, sha, _ = indexed

    code = dict(row_set(store, f"{IN_SNAPSHOT} AND n.id IN $ids RETURN n.id, n.code",
                        repo=repo, snapshot=sha, ids=["app/latin1.py", "app/broken.py:fine"]))

    assert code == {"app/latin1.py": "# caf\ufffd (latin-1, not UTF-8)\ndef good():\n    return 1\n",
                    "app/broken.py:fine": "def fine():\n    return 2\n"}


def test_symlink_targets_never_reach_the_graph(indexed, store):
    repo, _, _ = indexed
    passwd_line = PASSWD.read_text().splitlines()[0]  # e.g. root:x:0:0:root:/root:/bin/bash

    leaks = row_set(store, "MATCH (n) WHERE n.code CONTAINS $passwd OR n.code CONTAINS $marker "
                           "OR (n.repo = $repo AND (n.id STARTS WITH 'evil' OR n.id STARTS WITH 'linked')) RETURN n.id",
                    repo=repo, passwd=passwd_line, marker=OUTSIDE_MARKER)

    assert passwd_line and leaks == set()


def test_deep_nesting_is_parsed_partially_and_reported(tmp_path, store):
    """600 nested defs: the extractors walk with explicit stacks, but tree-sitter's Python scanner gives up on
    indentation that deep, so the file is indexed for what was recovered and reported as nested too deep (not as
    a typo: "syntax errors")."""
    root, sha = make_repo(tmp_path / "deep", {"deep.py": deeply_nested(DEPTH), "ok.py": "def ok():\n    return 1\n"})
    name = unique_name()

    summary = invoke_index_json(root, name)

    functions = row_set(store, f"{IN_SNAPSHOT} AND n:Function RETURN n.id", repo=name, snapshot=sha)
    deep = {f for (f,) in functions if f.startswith("deep.py:")}
    assert summary["files_parsed"] == 2 and summary["warnings"] == {NESTED_TOO_DEEP: 1}
    assert ("ok.py:ok",) in functions
    assert 0 < len(deep) <= DEPTH
    assert max(deep, key=len).endswith(f".level{DEPTH - 1}")  # the innermost levels were recovered

def test_a_blob_missing_from_the_object_store_is_skipped_with_its_reason(tmp_path, store):
    """Partial copies (a fetched snapshot without its largest files) list blobs git cannot read."""
    root, _ = make_repo(tmp_path / "partial", {"a.py": "def a():\n    return 1\n", "b.py": "def b():\n    return 2\n"})
    blob = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD:b.py"], capture_output=True, text=True,
                          check=True).stdout.strip()
    (root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()

    report = invoke_index_json(root, unique_name(), "--no-embed")

    assert report["skipped"] == {"blob missing from the git object store": 1}
    assert report["nodes"]["Function"] == 1
