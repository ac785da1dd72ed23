"""The one error handler (`indexer.cli.error_handler.fail_cleanly`): an exception spider did not foresee becomes one line and
exit 70, with its secrets masked; --debug (or SPIDER_DEBUG=1) adds the traceback, masked too."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from spider.indexer.cli.error_handler import BROKEN_PIPE_EXIT, UNEXPECTED_EXIT
from spider.indexer.graph import neo4j_local
from spider.query.cli.main import main as spider

PLANTED = "planted-S3CRET-pw"
LINE = "spider: error: unexpected RuntimeError: lost bolt://neo4j:***@db:7687 with key ***"  # the first line, masked


@pytest.fixture
def status_fails(monkeypatch):
    """`spider neo4j status` meets a bug whose message holds a URI with a password and the API key in use."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-" + PLANTED)
    monkeypatch.delenv("SPIDER_DEBUG", raising=False)

    def broken() -> dict:
        raise RuntimeError(f"lost bolt://neo4j:{PLANTED}@db:7687 with key sk-ant-{PLANTED}\nsecond line")

    monkeypatch.setattr(neo4j_local, "status", broken)


def test_an_unexpected_exception_is_one_masked_line(status_fails):
    result = CliRunner().invoke(spider, ["neo4j", "status"], prog_name="spider")
    assert result.exit_code == UNEXPECTED_EXIT
    assert result.stderr.splitlines() == [
        f"{LINE} (run `spider --debug ...` or set SPIDER_DEBUG=1 for the traceback)"]
    assert result.stdout == ""


@pytest.mark.parametrize("args, env", [(["--debug", "neo4j", "status"], {}),
                                       (["neo4j", "status"], {"SPIDER_DEBUG": "1"})])
def test_debug_shows_the_traceback_with_secrets_masked(status_fails, args, env):
    result = CliRunner().invoke(spider, args, env=env, prog_name="spider")
    assert result.exit_code == UNEXPECTED_EXIT
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert "in broken" in result.stderr and "second line" in result.stderr
    assert result.stderr.splitlines()[-1] == LINE
    assert PLANTED not in result.output


def test_what_a_command_prints_is_masked(monkeypatch):
    monkeypatch.setenv("QDRANT_API_KEY", PLANTED)
    monkeypatch.setattr(neo4j_local, "status", lambda: {"uri": f"bolt://u:{PLANTED}@h", "note": f"key {PLANTED}"})
    result = CliRunner().invoke(spider, ["neo4j", "status", "--json"], prog_name="spider")
    assert result.exit_code == 0 and PLANTED not in result.output and '"uri": "bolt://u:***@h"' in result.output


def test_a_reader_that_closes_the_pipe_ends_the_command_quietly(tmp_path):
    """`spider models list | head -1`: the reader leaving is no error of spider's, so no message, and the exit
    status a shell gives a writer that SIGPIPE ends (128 + 13)."""
    command = [sys.executable, "-c", "from spider.query.cli.main import main; main()", "models", "list"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "SPIDER_HOME": str(tmp_path)})
    process.stdout.close()  # before Python has started: its first write meets a pipe nobody reads
    stderr = process.stderr.read().decode()
    assert process.wait() == BROKEN_PIPE_EXIT == 141
    assert stderr == ""
