"""The one error handler (`spider.cli.error_handler.fail_cleanly`): an exception spider did not foresee becomes one line and
exit 70, with its secrets masked (a BaseException such as a Rust panic too); --debug (or SPIDER_DEBUG=1) adds the
traceback, masked too. Neo4j gone or out of memory mid-command is no bug: one line that says what to do, exit 2."""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import neo4j
import pytest
from click.testing import CliRunner
from spider.cli.error_handler import BROKEN_PIPE_EXIT, UNEXPECTED_EXIT
from spider.cli.main import main as spider
from spider.indexer.graph import neo4j_local
from spider.indexer.graph.store import MEMORY_POOL

PLANTED = "planted-S3CRET-pw"
LINE = "spider: error: unexpected RuntimeError: lost bolt://neo4j:***@db:7687 with key ***"  # the first line, masked


@pytest.fixture
def status_fails(monkeypatch):
    """`spider neo4j status` meets a bug whose message holds a URI with a password and the API key in use."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-" + PLANTED)
    monkeypatch.delenv("SPIDER_DEBUG", raising=False)

    def broken(settings) -> dict:
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
    monkeypatch.setattr(neo4j_local, "status", lambda settings: {"uri": f"bolt://u:{PLANTED}@h", "note": f"key {PLANTED}"})
    result = CliRunner().invoke(spider, ["neo4j", "status", "--json"], prog_name="spider")
    assert result.exit_code == 0 and PLANTED not in result.output and '"uri": "bolt://u:***@h"' in result.output


def test_a_reader_that_closes_the_pipe_ends_the_command_quietly(tmp_path):
    """`spider models list | head -1`: the reader leaving is no error of spider's, so no message, and the exit
    status a shell gives a writer that SIGPIPE ends (128 + 13)."""
    command = [sys.executable, "-c", "from spider.cli.main import main; main()", "models", "list"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "SPIDER_HOME": str(tmp_path)})
    process.stdout.close()  # before Python has started: its first write meets a pipe nobody reads
    stderr = process.stderr.read().decode()
    assert process.wait() == BROKEN_PIPE_EXIT == 141
    assert stderr == ""


PanicException = type("PanicException", (BaseException,), {"__module__": "pyo3_runtime"})  # as pyo3 makes it


def test_a_base_exception_that_is_no_interrupt_is_one_line_and_exit_70_not_a_traceback(monkeypatch):
    """pyo3's PanicException (a Rust panic in a binding) derives from BaseException, past `except Exception`."""
    monkeypatch.delenv("SPIDER_DEBUG", raising=False)

    def panics(settings) -> dict:
        raise PanicException("index out of bounds: the len is 0 but the index is 0")

    monkeypatch.setattr(neo4j_local, "status", panics)
    result = CliRunner().invoke(spider, ["neo4j", "status"], prog_name="spider")
    assert result.exit_code == UNEXPECTED_EXIT
    assert result.stderr.splitlines() == [
        "spider: error: unexpected PanicException: index out of bounds: the len is 0 but the index is 0 (run "
        "`spider --debug ...` or set SPIDER_DEBUG=1 for the traceback)"]


def server_error(code: str, message: str) -> neo4j.exceptions.Neo4jError:
    """The driver's exception for a failure the server reports, made as the driver makes it."""
    return neo4j.exceptions.Neo4jError._hydrate_neo4j(code=code, message=message)


def memory_pool_error() -> neo4j.exceptions.Neo4jError:
    """What the driver raises for a query past db.memory.transaction.max (Neo4j 2026.08's words)."""
    return server_error(MEMORY_POOL, "The allocation of an extra 2.0 MiB would use more than the limit 16.0 MiB. "
                                     "Currently using 14.3 MiB. db.memory.transaction.max threshold reached")


LOCAL_GONE = ("spider: error: the local Neo4j stopped answering: start it with `spider neo4j start` "
              "(`spider neo4j status` shows its state), then try again")
DRIVER_FAILURES = {  # what the driver raises mid-command, NEO4J_URI -> the one line spider prints
    "connection lost": (neo4j.exceptions.ServiceUnavailable("Failed to read from defunct connection"), None,
                        LOCAL_GONE),
    "session expired": (neo4j.exceptions.SessionExpired("Failed to read from defunct connection"), None, LOCAL_GONE),
    "server elsewhere lost": (neo4j.exceptions.ServiceUnavailable("Couldn't connect to db.example:7687"),
                              "bolt://db.example:7687", "spider: error: Neo4j at bolt://db.example:7687 stopped "
                              "answering: check that it runs and is reachable, then try again"),
    "memory pool": (memory_pool_error(), None, (
        "spider: error: the query needed more memory than Neo4j lets a transaction use (The allocation of an extra "
        "2.0 MiB would use more than the limit 16.0 MiB. Currently using 14.3 MiB. db.memory.transaction.max "
        "threshold reached): narrow it (a LIMIT, fewer hops, no collect() of everything), or raise that limit")),
    "database unavailable": (server_error("Neo.TransientError.General.DatabaseUnavailable", "The database is not "
                                          "currently available to serve your request"), None, (
        "spider: error: Neo4j could not finish the query for now (Neo.TransientError.General.DatabaseUnavailable: "
        "The database is not currently available to serve your request): try again")),
}


@pytest.mark.parametrize("case", DRIVER_FAILURES)
def test_neo4j_gone_or_out_of_memory_is_one_line_and_exit_2(monkeypatch, case):
    error, uri, line = DRIVER_FAILURES[case]
    monkeypatch.delenv("SPIDER_DEBUG", raising=False)
    monkeypatch.delenv("NEO4J_URI", raising=False)
    if uri:
        monkeypatch.setenv("NEO4J_URI", uri)

    def fails(settings) -> dict:
        raise error

    monkeypatch.setattr(neo4j_local, "status", fails)
    result = CliRunner().invoke(spider, ["neo4j", "status"], prog_name="spider")
    assert (result.exit_code, result.stderr.splitlines()) == (2, [line])


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_a_full_disk_is_one_line_naming_the_file_and_exit_2(monkeypatch, code):
    """A cache or state file written to a full disk (or past a quota) is the environment's failure, not a bug."""
    monkeypatch.delenv("SPIDER_DEBUG", raising=False)

    def fails(settings) -> dict:
        raise OSError(code, os.strerror(code), "/home/u/.spider/snapshots/x.json.tmp")

    monkeypatch.setattr(neo4j_local, "status", fails)
    result = CliRunner().invoke(spider, ["neo4j", "status"], prog_name="spider")
    assert (result.exit_code, result.stderr.splitlines()) == (2, [
        f"spider: error: no room left on the disk to write /home/u/.spider/snapshots/x.json.tmp "
        f"({os.strerror(code)}): free space on it, then run again"])
