"""Training pairs from git history (`spider models pairs`, `indexer.tuning.pairs`) on a repository built here."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from spider.cli.main import main as spider
from spider.indexer.models.tuning.pairs import PairsRun, build_pairs, is_validation

from tests.fixtures.gitrepo import git, make_repo, write_files

APP = "def f(items):\n    if items:\n        return items[0]\n    return None\n\n\ndef g(x):\n    return x + 1\n"
TESTS = "def test_f():\n    assert f([1]) == 1\n"
MANY = "".join(f"def m{i}():\n    return {i}\n\n\n" for i in range(7))


def commit(root: Path, files: dict[str, str], message: str, author: str = "Ada <ada@example.org>") -> str:
    write_files(root, files)
    git(root, "add", "-A")
    name, _, email = author.partition(" <")
    subprocess.run(["git", "-C", str(root), "commit", "-q", "-m", message], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email.rstrip(">"),
                        "GIT_COMMITTER_NAME": "c", "GIT_COMMITTER_EMAIL": "c@example.org",
                        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"})
    return git(root, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    root, _ = make_repo(tmp_path_factory.mktemp("history") / "app", {"app.py": APP, "tests/test_app.py": TESTS,
                                                                        "many.py": MANY, "README.md": "app\n"})
    shas = {
        "fix": commit(root, {"app.py": APP.replace("return None", "return []")},
                      "Return an empty list when f gets no items (#12)\n\nSigned-off-by: Ada <ada@example.org>"),
        "bot": commit(root, {"app.py": APP.replace("return None", "return []").replace("x + 1", "x + 2")},
                      "Change the increment of g to two", "dependabot[bot] <bot@example.org>"),
        "new": commit(root, {"app.py": APP.replace("return None", "return []").replace("x + 1", "x + 2")
                             + "\n\ndef h():\n    return 3\n"}, "Add a helper h beside g for later use"),
        "test": commit(root, {"tests/test_app.py": TESTS + "    assert f([]) == []\n"},
                       "Check that f returns an empty list for no items"),
        "many": commit(root, {"many.py": MANY.replace("return", "return -")}, "Negate every value the m functions give"),
        "docs": commit(root, {"README.md": "app, a demo\n"}, "Say in the readme what the app is for"),
        "both": commit(root, {"app.py": (APP.replace("return None", "return []").replace("x + 1", "x + 3")
                                         .replace("return items[0]", "return items[-1]")
                                         + "\n\ndef h():\n    return 3\n")},
                       "Take the last item in f and add three in g"),
        "release": commit(root, {"app.py": APP}, "Release 1.0.0"),
    }
    return root, shas


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_function_a_described_commit_changes_is_one_pair(history, tmp_path):
    root, shas = history
    out = tmp_path / "pairs.jsonl"
    summary = build_pairs([("demo/app", root)], out, PairsRun(), report=lambda _: None)
    pairs = [(p["commit"], p["function"], p["message"]) for p in read(out)]
    assert pairs == [
        (shas["both"], "app.py:f", "Take the last item in f and add three in g"),
        (shas["both"], "app.py:g", "Take the last item in f and add three in g"),
        (shas["fix"], "app.py:f", "Return an empty list when f gets no items"),
    ]
    first = read(out)[2]
    assert first["text"] == "app.py:f\n" + APP.split("\n\n\n")[0] + "\n"  # the parent's code, as spider embeds it
    assert first["language"] == "python" and first["repo"] == "demo/app"
    commits = summary["repositories"]["demo/app"]["commits"]
    assert commits == {"gave pairs": 2, "more than 6 functions changed": 1, "no function changed": 3,
                       "release or version bump": 1, "written by a bot": 1}
    assert summary["pairs"] == 3 and summary["repositories"]["demo/app"]["head"] == git(root, "rev-parse", "HEAD")


def test_the_same_history_gives_the_same_file(history, tmp_path):
    root, _ = history
    build_pairs([("demo/app", root)], tmp_path / "a.jsonl", PairsRun(), report=lambda _: None)
    build_pairs([("demo/app", root)], tmp_path / "b.jsonl", PairsRun(), report=lambda _: None)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_a_cut_off_run_resumes_to_the_same_file(history, tmp_path):
    root, _ = history
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    build_pairs([("demo/app", root)], whole, PairsRun(), report=lambda _: None)
    build_pairs([("demo/app", root)], cut, PairsRun(), report=lambda _: None)
    progress = cut.with_name("cut.jsonl.progress")
    progress.write_text(progress.read_text().splitlines(keepends=True)[0] + '{"repo": "demo/a')  # cut mid-line
    cut.write_text(cut.read_text() + '{"repo": "demo/app", "commit": "')  # a pair cut mid-write
    lines: list[str] = []
    build_pairs([("demo/app", root)], cut, PairsRun(), report=lines.append)
    assert cut.read_bytes() == whole.read_bytes()
    assert "1 of the last 8 done before" in lines[-1]


def test_commits_are_held_out_by_their_hash(history, tmp_path):
    root, _ = history
    out = tmp_path / "pairs.jsonl"
    build_pairs([("demo/app", root)], out, PairsRun(validation_share=0.5), report=lambda _: None)
    assert [p["split"] for p in read(out)] == [
        "validation" if is_validation(p["commit"], 0.5) else "train" for p in read(out)]
    assert is_validation("0" * 40, 0.999) and not is_validation("0" * 40, 0.0)


def test_max_commits_reads_the_newest(history, tmp_path):
    root, shas = history
    out = tmp_path / "pairs.jsonl"
    build_pairs([("demo/app", root)], out, PairsRun(max_commits=3), report=lambda _: None)
    assert {p["commit"] for p in read(out)} == {shas["both"]}


def test_the_command_prints_the_counts_and_names_a_bad_repository_in_one_line(history, tmp_path):
    root, _ = history
    runner = CliRunner()
    result = runner.invoke(spider, ["models", "pairs", f"demo/app={root}", "--out", str(tmp_path / "p.jsonl")])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.stdout.splitlines()[2:-1]]
    assert {row[0] for row in rows} == {"demo/app"} and sum(int(row[2]) for row in rows) == 3
    assert result.stdout.splitlines()[-1] == f"3 pairs in {tmp_path / 'p.jsonl'} (counts in p.jsonl.summary.json)"
    missing = runner.invoke(spider, ["models", "pairs", str(tmp_path / "nope"), "--out", str(tmp_path / "q.jsonl")],
                            prog_name="spider")
    assert missing.exit_code == 2 and missing.stderr == f"spider: error: no such directory: {tmp_path / 'nope'}\n"


def test_a_history_git_cannot_read_to_the_end_keeps_what_was_read_and_the_others_go_on(history, tmp_path):
    """A repository whose history lacks an object (a partial mirror) is reported and kept as far as it reads."""
    root, shas = history
    broken = tmp_path / "broken"
    subprocess.run(["cp", "-r", str(root), str(broken)], check=True)
    blob = git(broken, "rev-parse", f"{shas['many']}~1:many.py")  # only the `many` commit's diff reads it
    (broken / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    out, lines = tmp_path / "pairs.jsonl", []
    summary = build_pairs([("demo/broken", broken), ("demo/app", root)], out, PairsRun(), report=lines.append)
    assert [(p["repo"], p["commit"]) for p in read(out)] == [("demo/broken", shas["both"])] * 2 + [
        ("demo/app", shas["both"])] * 2 + [("demo/app", shas["fix"])]
    unreadable = summary["repositories"]["demo/broken"]["unreadable"]
    assert unreadable.startswith("after 3 commits: cannot read the history of") and blob in unreadable
    assert "demo/broken: history unreadable after 3 commits" in "\n".join(lines)
    assert "unreadable" not in summary["repositories"]["demo/app"]
    result = CliRunner().invoke(spider, ["models", "pairs", f"demo/broken={broken}", "--out", str(tmp_path / "c.jsonl")])
    assert result.exit_code == 0
    assert result.stderr.splitlines()[-1].startswith("demo/broken: history read only in part, after 3 commits")


def test_a_header_is_read_in_the_language_the_repository_chose_for_it(tmp_path):
    """`.h` is C or C++ by which the repository holds more of, as `spider index` decides: here C++."""
    header = "class Cart {\n public:\n  int size() const {\n    return n_;\n  }\n  int n_;\n};\n"
    sources = {f"src/part{i}.cpp": f'#include "cart.h"\nint part{i}() {{ return {i}; }}\n' for i in range(3)}
    root, _ = make_repo(tmp_path / "cpp", {"include/cart.h": header, "src/main.c": "int main(void) { return 0; }\n",
                                           **sources})
    sha = commit(root, {"include/cart.h": header.replace("return n_;", "return n_ + 0;")},
                 "Count the items of a cart from zero")
    out = tmp_path / "pairs.jsonl"
    build_pairs([("demo/cpp", root)], out, PairsRun(), report=lambda _: None)
    assert [(p["commit"], p["language"], p["function"]) for p in read(out)] == [(sha, "cpp", "include/cart.h:Cart.size")]


def test_a_message_cannot_forge_a_commit_or_a_diff(tmp_path):
    """git log's separators in a message (as the old fixed ones were) are read as text, not as structure."""
    root, _ = make_repo(tmp_path / "forge", {"app.py": APP})
    blob = git(root, "rev-parse", "HEAD:app.py")
    forged = (f"Return the first item of f for a list\x1f\n:100644 100644 {blob} {blob} M\tapp.py\n\n"
              "\x1e" + "0" * 40 + " Forged commit about g\x1f")  # git refuses NUL in a message
    sha = commit(root, {"app.py": APP.replace("return items[0]", "return items[:1][0]")}, forged)
    out = tmp_path / "pairs.jsonl"
    build_pairs([("demo/forge", root)], out, PairsRun(), report=lambda _: None)
    pairs = read(out)
    assert [(p["commit"], p["function"]) for p in pairs] == [(sha, "app.py:f")]
    assert pairs[0]["message"].startswith("Return the first item of f for a list")
