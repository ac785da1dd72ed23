"""A repository and an issue that try to break what spider-query prints: names with terminal escapes, issue
text that is not UTF-8. spider answers, and what it prints cannot drive the terminal. The commands run in this
process (`invoke`), but for an issue given as an argument, whose bytes only a real process's argv carries."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.fixtures.gitrepo import make_repo
from tests.integration.helpers import invoke, invoke_index_json, unique_name

ESCAPES = "\x1b[2J\x1b]0;owned\x07\r\x9b"  # clear screen, set the window title, carriage return, C1 CSI


def run(command: str, *args: str, stdin: bytes | None = None, process: bool = False) -> subprocess.CompletedProcess:
    """The command in this process or (`process`) as a user runs it, its output kept as bytes: what reaches the
    terminal, undecoded."""
    if not process:
        return invoke(command, *args, input=stdin, text=False)
    return subprocess.run([command, *args], input=stdin, capture_output=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, neo4j_settings) -> str:
    """A repository whose file and function names hold terminal escapes, indexed under a unique name."""
    root, _ = make_repo(tmp_path_factory.mktemp("hostile") / "repo", {
        f"app/evil{ESCAPES}.py": "def parse_order_total(order):\n    return order.total\n",
        "app/plain.py": "def parse_order_lines(order):\n    return order.lines\n",
    })
    name = unique_name()
    invoke_index_json(root, name)
    return name


@pytest.mark.parametrize("how", ["argument", "file", "stdin"])
def test_an_issue_that_is_not_utf8_is_answered_with_a_note(hostile, tmp_path, how):
    issue = b"parse order total \xff\xfe crashes"
    issue_file = tmp_path / "issue.txt"
    issue_file.write_bytes(issue)
    given = {"argument": ([os.fsdecode(issue)], None), "file": (["--issue-file", str(issue_file)], None),
             "stdin": ([], issue)}[how]
    result = run("spider-query", *given[0], "--repo", hostile, "--method", "bm25", "--json", stdin=given[1],
                 process=how == "argument")
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    answer = json.loads(result.stdout)
    assert answer["results"]
    assert "the issue text is not UTF-8: 2 undecodable byte sequence(s) read as U+FFFD" in answer["notes"]


def test_terminal_escapes_in_names_are_shown_as_escapes(hostile, tmp_path):
    result = run("spider-query", "parse order total", "--repo", hostile, "--method", "bm25")
    table = result.stdout.decode()
    assert result.returncode == 0 and "evil\\x1b[2J\\x1b]0;owned\\x07\\r\\x9b.py" in table, table
    assert not any(c in table for c in "\x1b\x07\r\x9b")
    query = tmp_path / "paths.cypher"
    query.write_text("MATCH (f:File) WHERE f.repo = $repo RETURN DISTINCT f.path AS path")
    listed = run("spider", "cypher", str(query), "--repo", hostile).stdout.decode()
    assert "evil\\x1b[2J" in listed and not any(c in listed for c in "\x1b\x07\r\x9b"), listed


def test_what_spider_index_prints_cannot_drive_the_terminal(tmp_path, neo4j_settings):
    """The summary names the repository and revision the user gave, and --verbose the skipped files."""
    root, _ = make_repo(tmp_path / "repo", {f"dist/app{ESCAPES}.min.js": "function m(){return 1}\n",
                                            "app.py": "def run():\n    return 1\n"})
    name = f"{unique_name()}{ESCAPES}"
    first = run("spider", "index", str(root), "--repo", name, "--verbose")
    again = run("spider", "snapshots", "delete", name, "HEAD")  # refused: names no sha prefix, echoing the name
    for result in (first, again):
        output = result.stdout + result.stderr
        assert not any(c in output.decode() for c in "\x1b\x07\r\x9b"), output
    assert first.returncode == 0 and b"\\x1b]0;owned\\x07" in first.stdout, first.stdout
