"""Hostile repository contents and names: file names that are not UTF-8, UTF-16 sources, corrupted objects,
manifest URLs that try to run programs. Each is indexed, skipped with its reason or refused in one line. `spider` runs
in this process (`invoke_spider`), but for `org index` (Celery's app is configured once per process)."""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.fixtures.gitrepo import git, make_repo
from tests.integration.helpers import (
    IN_SNAPSHOT,
    invoke_index_json,
    invoke_spider,
    one_line_error,
    row_set,
    run_spider,
    succeeded,
    unique_name,
)

NOT_UTF8 = b"\xff\xfe"


def commit_raw_names(root: Path, files: dict[bytes, bytes]) -> str:
    """Commit files whose names are raw bytes (os-level names: make_repo takes str); returns the commit."""
    for raw_path, content in files.items():
        target = os.path.join(os.fsencode(root), raw_path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(content)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "raw names")
    return git(root, "rev-parse", "HEAD")


def functions_of(store, repo: str, sha: str) -> set[tuple]:
    return row_set(store, f"{IN_SNAPSHOT} AND n:Function RETURN n.id, n.start_line, n.end_line",
                   repo=repo, snapshot=sha)


def test_a_file_name_that_is_not_utf8_is_indexed_under_its_escaped_path(tmp_path, store):
    root, _ = make_repo(tmp_path / "names", {"ok.py": "def ok():\n    return 1\n"})
    sha = commit_raw_names(root, {b"d" + NOT_UTF8 + b"/bad" + NOT_UTF8 + b".py": b"def bad():\n    return 2\n",
                                  b"back\\slash" + NOT_UTF8 + b".py": b"def slash():\n    return 3\n"})
    name = unique_name()

    summary = invoke_index_json(root, name, "--no-embed")

    assert summary["files_parsed"] == 3 and summary["skipped"] == {}
    assert functions_of(store, name, sha) == {
        ("ok.py:ok", 1, 2), ("d\\xff\\xfe/bad\\xff\\xfe.py:bad", 1, 2),
        ("back\\\\slash\\xff\\xfe.py:slash", 1, 2),  # a backslash of such a name is doubled: no two names meet
    }


def test_a_non_utf8_name_whose_escaped_form_names_another_file_is_skipped(tmp_path, store):
    """`a\\xff.py` spelled out in UTF-8 and the byte 0xff in `a?.py` would share one id: the real UTF-8 name
    keeps it, the other is skipped with its reason, as is a file under a directory whose escape meets another."""
    root, _ = make_repo(tmp_path / "collide", {"a\\xff.py": "def spelled():\n    return 1\n",
                                                "d\\xfe/x.py": "def inside():\n    return 1\n"})
    sha = commit_raw_names(root, {b"a\xff.py": b"def raw():\n    return 2\n",
                                  b"d\xfe/y.py": b"def other():\n    return 2\n"})
    name = unique_name()

    summary = invoke_index_json(root, name, "--no-embed")

    reason = "file name is not UTF-8 and its escaped form names another file"
    assert summary["skipped"] == {reason: 2}
    assert summary["skipped_files"] == [
        {"path": "a\\xff.py", "reason": reason}, {"path": "d\\xfe/y.py", "reason": reason}]
    assert {f for (f, _, _) in functions_of(store, name, sha)} == {"a\\xff.py:spelled", "d\\xfe/x.py:inside"}


PY_SOURCE = "# ünïcode\nclass Greeter:\n    def hello(self):\n        return 'hi'\n\n\ndef main():\n    return 1\n"
JAVA_SOURCE = "package app;\n\n// ünïcode\npublic class Hello {\n    void greet() {\n    }\n}\n"


def test_sources_with_a_byte_order_mark_are_decoded_with_their_lines(tmp_path, store):
    files = {
        "le/app.py": codecs.BOM_UTF16_LE + PY_SOURCE.encode("utf-16-le"),
        "be/app.py": codecs.BOM_UTF16_BE + PY_SOURCE.replace("\n", "\r\n").encode("utf-16-be"),
        "u8/app.py": codecs.BOM_UTF8 + PY_SOURCE.encode(),
        "src/app/Hello.java": codecs.BOM_UTF16_BE + JAVA_SOURCE.encode("utf-16-be"),
        "src/app/Other.java": codecs.BOM_UTF16_LE + JAVA_SOURCE.replace("Hello", "Other").encode("utf-16-le"),
    }
    root, sha = make_repo(tmp_path / "boms", files)
    name = unique_name()

    summary = invoke_index_json(root, name, "--no-embed")

    assert summary["skipped"] == {} and summary["warnings"] == {} and summary["files_parsed"] == 5
    python = {(f"{d}/app.py:{q}", start, end) for d in ("le", "be", "u8")
              for q, start, end in (("Greeter.hello", 3, 4), ("main", 7, 8))}
    java = {("src/app/Hello.java:Hello.greet", 5, 6), ("src/app/Other.java:Other.greet", 5, 6)}
    assert functions_of(store, name, sha) == python | java
    code = dict(row_set(store, f"{IN_SNAPSHOT} AND n.id = 'le/app.py' RETURN n.id, n.code", repo=name, snapshot=sha))
    assert code == {"le/app.py": PY_SOURCE}


def _corrupt(root: Path, obj: str) -> None:
    """Overwrite a loose object's file with bytes that are not zlib."""
    sha = git(root, "rev-parse", obj)
    target = root / ".git" / "objects" / sha[:2] / sha[2:]
    target.chmod(0o644)
    target.write_bytes(b"this is not a zlib stream")


def test_a_corrupted_commit_object_is_reported_as_corrupt_not_unknown(tmp_path):
    root, sha = make_repo(tmp_path / "corrupt-commit", {"a.py": "def a():\n    return 1\n"})
    _corrupt(root, "HEAD")

    error = one_line_error(invoke_spider("index", root, "--repo", unique_name(), "--no-embed"))

    assert f"commit {sha} is corrupt or unreadable in the object store: fatal: loose object {sha}" in error
    assert "unknown revision" not in error
    missing = one_line_error(invoke_spider("index", root, "--rev", "nosuch", "--repo", unique_name(), "--no-embed"))
    assert "unknown revision 'nosuch'" in missing


def test_a_revision_that_names_no_commit_is_not_called_corrupt(tmp_path):
    """git explains on stderr why a tree is no commit: only objects it cannot read are corrupt."""
    root, _ = make_repo(tmp_path / "healthy", {"a.py": "def a():\n    return 1\n"})

    error = one_line_error(invoke_spider("index", root, "--rev", "HEAD^{tree}", "--repo", unique_name(), "--no-embed"))

    assert "unknown revision 'HEAD^{tree}'" in error and "corrupt" not in error


def test_a_corrupted_tree_object_is_reported_in_one_line(tmp_path):
    root, sha = make_repo(tmp_path / "corrupt-tree", {"a.py": "def a():\n    return 1\n"})
    tree = git(root, "rev-parse", "HEAD^{tree}")
    _corrupt(root, tree)

    error = one_line_error(invoke_spider("index", root, "--repo", unique_name(), "--no-embed"))

    assert f"the tree of commit {sha} is corrupt or unreadable in the object store: fatal: loose object {tree}" in error


def test_a_blob_git_cannot_inflate_is_skipped_and_the_others_are_read(tmp_path, store):
    """git names the blob's size, then dies inside its content: that file is skipped, not read short, and the
    files after it in the same `cat-file --batch` are still read."""
    files = {"a.py": "def a():\n    return 1\n", "b.py": f"def b():\n    '{uuid.uuid4()}'\n" + "    x = 1\n" * 3000,
             "c.py": "def c():\n    return 3\n"}
    root, sha = make_repo(tmp_path / "truncated", files)
    blob = git(root, "rev-parse", "HEAD:b.py")
    stored = root / ".git" / "objects" / blob[:2] / blob[2:]
    stored.chmod(0o644)
    whole = stored.read_bytes()
    stored.write_bytes(whole[: len(whole) // 2])
    name = unique_name()

    summary = invoke_index_json(root, name, "--no-embed")

    assert summary["skipped_files"] == [{"path": "b.py",
                                         "reason": "blob corrupt or unreadable in the git object store"}]
    assert {f for (f, _, _) in functions_of(store, name, sha)} == {"a.py:a", "c.py:c"}
    stored.write_bytes(whole)  # repaired (fetched again): the next commit reads it, not the parse cache's skip
    _, later = make_repo(root, {"d.py": "def d():\n    return 4\n"}, message="later")
    assert invoke_index_json(root, name, "--no-embed")["skipped_files"] == []
    assert {f for (f, _, _) in functions_of(store, name, later)} == {"a.py:a", "b.py:b", "c.py:c", "d.py:d"}


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

    summary = invoke_index_json(root, name, "--no-embed")
    verbose = succeeded(invoke_spider("index", root, "--repo", unique_name(), "--no-embed", "--verbose"))

    assert summary["skipped_files"] == [
        {"path": "app/blob.py", "reason": "binary"},
        {"path": "app/empty.py", "reason": "no classes, functions or imports"},
        {"path": "dist/app.min.js", "reason": "minified"}]
    assert summary["warned_files"] == [{"path": "app/broken.py", "warnings": ["syntax errors"]}]
    lines = verbose.splitlines()
    listed = lines[lines.index("  skipped files:"):]
    assert listed == ["  skipped files:", "    app/blob.py: binary",
                      "    app/empty.py: no classes, functions or imports", "    dist/app.min.js: minified",
                      "  files parsed with warnings:",
                      "    app/broken.py: syntax errors"]
    assert lines[1].startswith("  files: 2 parsed, 3 skipped (")  # the summary lines stay as they were
    again = json.loads(succeeded(invoke_spider("index", root, "--repo", name, "--json", "--no-embed")))
    assert again["already_indexed"] is True and again["skipped_files"] is None  # not kept with the snapshot


@pytest.mark.parametrize("url", ["ext::sh -c touch% {marker}", "--upload-pack=touch {marker}"])
def test_a_manifest_url_that_would_run_a_program_fails_alone(tmp_path, repo_name, url):
    """Even where the user's git config allows every protocol, the URL runs nothing and fails its own job."""
    marker = tmp_path / "pwned"
    good, _ = make_repo(tmp_path / "good", {"a.py": "def a():\n    return 1\n"})
    manifest = tmp_path / "org.json"
    manifest.write_text(json.dumps({"repos": [{"url": url.format(marker=marker), "name": f"{repo_name}-evil"},
                                              {"url": f"file://{good}", "name": f"{repo_name}-good"}]}))
    permissive = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "protocol.allow", "GIT_CONFIG_VALUE_0": "always"}
    env = {"SPIDER_BROKER_URL": "", "SPIDER_REPO_CACHE": str(tmp_path / "cache"), **permissive}

    # a process of its own: Celery's app, which `org index` runs its jobs on, is configured once per process
    result = run_spider("org", "index", manifest, "--json", "--no-embed", env=env, timeout=120)

    assert not marker.exists()
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    outcomes = {o["repo"]: o for o in json.loads(result.stdout)}
    assert outcomes[f"{repo_name}-good"]["status"] == "done"
    evil = outcomes[f"{repo_name}-evil"]
    assert evil["status"] == "failed" and "\n" not in evil["error"]
    assert "not an allowed repository URL" in evil["error"]


def test_git_is_never_asked_to_run_repository_hooks_or_fsmonitor(tmp_path):
    """A repository's own config could name programs (core.fsmonitor, hooks): indexing it runs none of them."""
    root, _ = make_repo(tmp_path / "config", {"a.py": "def a():\n    return 1\n"})
    marker = tmp_path / "ran"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    for key in ("core.fsmonitor", "core.sshCommand", "core.pager"):
        git(root, "config", key, str(script))
    for hook in ("post-checkout", "reference-transaction", "pre-auto-gc"):
        (root / ".git" / "hooks" / hook).write_text(script.read_text())
        (root / ".git" / "hooks" / hook).chmod(0o755)

    succeeded(invoke_spider("index", root, "--repo", unique_name(), "--no-embed", "--verbose"))

    assert not marker.exists()
    subprocess.run(["git", "-C", str(root), "status"], capture_output=True)
    assert marker.exists()  # the same config does run a program for a command that honours it


def test_a_repository_of_another_user_is_refused_with_git_s_reason(tmp_path):
    """git will not read a repository another user owns (its config could run programs): spider says so, and how
    to trust it, rather than calling it no repository at all."""
    root, _ = make_repo(tmp_path / "theirs", {"a.py": "def a():\n    return 1\n"})

    error = one_line_error(invoke_spider("index", root, "--repo", unique_name(), "--no-embed",
                                      env={"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}))

    assert f"{root} is owned by another user" in error
    assert f"git config --global --add safe.directory {root}" in error
