"""Arbitrary command lines and settings for `spider` and `spider-query`: a result or an error message, never an
exception, never a secret.

Neo4j is a closed local port here, so a command line that parses reaches the service error path in
milliseconds; commands that start or stop services or train models (neo4j, models, worker, eval,
train-selector) are left out: they are not for arbitrary arguments.
"""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from spider.cli.ask import query_command as spider_query
from spider.cli.main import main as spider

SECRET = "fuzz-password-5e1f"
# What the OS can hand a process as argv or environment: no NUL, and undecodable bytes only as Python's
# surrogate escapes \udc80-\udcff (sampled on their own), never other lone surrogates.
OS_TEXT = st.characters(exclude_categories=("Cs",), exclude_characters="\x00")
UNREACHABLE = {"NEO4J_URI": "bolt://127.0.0.1:1", "NEO4J_USER": "neo4j", "NEO4J_PASSWORD": SECRET}
# Hostile settings: each variable is left as above or set to a bad value (a secret in the URI is never shown).
SETTINGS = {
    "NEO4J_URI": st.sampled_from(["bolt://127.0.0.1:1", f"bolt://neo4j:{SECRET}@127.0.0.1:1", "bolt://\udcff:1",
                                  f"neo4j+s://u:{SECRET}@127.0.0.1:1", "not a uri", "bolt://", "http://[::1"])
    | st.text(OS_TEXT, min_size=1, max_size=20),  # unset means the local server
    "NEO4J_DATABASE": st.sampled_from(["neo4j", "", "no such db", "-"]),
    "SPIDER_LLM_TIMEOUT": st.sampled_from(["60", "abc", "-3", "0", "nan", "inf", ""]),
    "SPIDER_CYPHER_TIMEOUT": st.sampled_from(["60", "abc", "-3", "0", ""]),
}
COMMANDS = {
    ("spider", "index"), ("spider", "cypher"), ("spider", "jobs"), ("spider", "org", "index"),
    ("spider", "snapshots", "list"), ("spider", "snapshots", "delete"), ("spider", "snapshots", "diff"),
    ("spider", "snapshots", "prune"), ("spider-query",),
}


def command_of(path: tuple[str, ...]) -> click.Command:
    command: click.Command = spider_query if path == ("spider-query",) else spider
    for name in path[1:]:
        command = command.commands[name]
    return command


def arguments(path: tuple[str, ...]) -> st.SearchStrategy[list[str]]:
    """Tokens mixing the command's own option names with arbitrary text, so both parse and fail to parse."""
    options = sorted(opt for param in command_of(path).params for opt in getattr(param, "opts", [])
                     if opt.startswith("-") and opt != "--debug")  # --debug asks for the traceback
    token = st.sampled_from(["--", *options]) | st.text(OS_TEXT, max_size=40) | st.sampled_from(
        ["0", "-1", "3", "1e9", "contains:4", "\udcff\udcfe"])
    return st.lists(token, max_size=6)


@pytest.fixture(scope="module")
def runner_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return {**UNREACHABLE, "SPIDER_HOME": str(tmp_path_factory.mktemp("fuzz-home")),
            "SPIDER_BROKER_URL": "", "ANTHROPIC_API_KEY": "", "SPIDER_OPENAI_BASE_URL": ""}


@pytest.mark.parametrize("path", sorted(COMMANDS))
@given(data=st.data())
def test_any_command_line_ends_in_a_result_or_an_error_message(path, runner_env, data):
    args = data.draw(arguments(path))
    env = {**runner_env, **data.draw(st.fixed_dictionaries({}, optional=SETTINGS))}
    root = spider_query if path == ("spider-query",) else spider
    result = CliRunner().invoke(root, [*path[1:], *args], env=env, catch_exceptions=True)
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, repr(result.exception))
    assert "Traceback" not in result.output
    assert SECRET not in result.output
    assert not (Path(runner_env["SPIDER_HOME"]) / "neo4j" / "server.json").exists(), "a local Neo4j was started"
    if result.exit_code != 0 and "Usage:" not in result.output:  # click's own usage errors name the option
        assert len(result.output.strip().splitlines()) == 1, (args, result.output)
