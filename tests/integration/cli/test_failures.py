"""Failures as users meet them: each is one line on stderr and a non-zero exit, never a traceback, and no secret
planted in the environment shows anywhere in what they print. The commands run in this process (`invoke`), but for
one case of each console script, run as a user runs it: what reaches the terminal of a process of its own."""

from __future__ import annotations

import json
import os
import socket
import subprocess

import pytest
from spider.core.settings import Neo4jSettings
from spider.indexer.graph import jobs

from tests.integration.helpers import invoke, run_spider

PLANTED = {  # every secret-bearing setting, each with a value no output may show
    "NEO4J_PASSWORD": "planted-neo4j-pw-1",
    "ANTHROPIC_API_KEY": "sk-ant-planted-2",
    "QDRANT_API_KEY": "planted-qdrant-key-3",
    "SPIDER_OPENAI_API_KEY": "sk-planted-openai-4",
    "SPIDER_BROKER_URL": "redis://:planted-broker-pw-5@127.0.0.1:1/0",
}
URI_PASSWORD = "planted-uri-pw-6"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(command: str, *args: str, env: dict[str, str], process: bool = False) -> subprocess.CompletedProcess:
    """The command with the planted secrets, in this process or (`process`) as a user runs it; its output kept as
    bytes: what reaches the terminal, undecoded."""
    if not process:
        return invoke(command, *args, env={**PLANTED, **env}, text=False)
    return subprocess.run([command, *args], capture_output=True, timeout=120, check=False,
                          env={**os.environ, **PLANTED, **env})


AS_A_PROCESS = {"unreachable server", "LLM timeout not a number"}  # one of `spider`'s, one of `spider-query`'s


def failure_cases(neo4j: Neo4jSettings) -> dict[str, tuple[str, tuple[str, ...], dict[str, str], str]]:
    """name -> (command, args, environment, what the one line says)."""
    port = closed_port()
    real = {"NEO4J_URI": neo4j.uri, "NEO4J_USER": neo4j.user, "NEO4J_PASSWORD": neo4j.password}
    llm = {"SPIDER_OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "SPIDER_OPENAI_MODEL": "m"}
    query = ("spider-query", ("a bug", "--selector", "openai"))
    return {
        "password in a bolt URI": ("spider", ("snapshots", "list"),
                                   {"NEO4J_URI": f"bolt://neo4j:{URI_PASSWORD}@127.0.0.1:{port}"}, "holds credentials"),
        "password in a neo4j+s URI": ("spider", ("snapshots", "list"),
                                      {"NEO4J_URI": f"neo4j+s://neo4j:{URI_PASSWORD}@db.invalid"}, "holds credentials"),
        "not a URI": ("spider", ("snapshots", "list"), {"NEO4J_URI": "not a uri"}, "is not a Neo4j URI"),
        "bad port": ("spider-query", ("a bug",), {"NEO4J_URI": "bolt://127.0.0.1:port"}, "is not a Neo4j URI"),
        "unreachable server": ("spider", ("snapshots", "list"), {"NEO4J_URI": f"bolt://127.0.0.1:{port}"},
                               "cannot reach Neo4j at bolt://127.0.0.1"),
        "no such database": ("spider", ("snapshots", "list"), {**real, "NEO4J_DATABASE": "nosuchdb"},
                             "Neo4j has no database 'nosuchdb' (check NEO4J_DATABASE)"),
        "LLM timeout not a number": (*query, {**llm, "SPIDER_LLM_TIMEOUT": "abc"},
                                     "SPIDER_LLM_TIMEOUT must be a positive number of seconds, not 'abc'"),
        "LLM timeout negative": (*query, {**llm, "SPIDER_LLM_TIMEOUT": "-5"},
                                 "SPIDER_LLM_TIMEOUT must be a positive number of seconds, not '-5'"),
    }


@pytest.fixture(scope="module")
def failures(neo4j_settings) -> dict[str, tuple[subprocess.CompletedProcess, str, str]]:
    """Every failure case, run once: name -> (result, the program's name, what its line says)."""
    return {name: (run(command, *args, env=env, process=name in AS_A_PROCESS), command, says)
            for name, (command, args, env, says) in failure_cases(neo4j_settings).items()}


@pytest.mark.parametrize("case", list(failure_cases(Neo4jSettings("bolt://x", "u", "p"))))
def test_a_failure_is_one_line_and_a_non_zero_exit(failures, case):
    result, program, says = failures[case]
    stderr = result.stderr.decode()
    assert result.returncode == 2 and b"Traceback" not in result.stderr, stderr
    assert len(stderr.splitlines()) == 1 and stderr.startswith(f"{program}: error: ") and says in stderr, stderr
    assert result.stdout == b""


def test_a_failed_job_keeps_its_error_masked_in_the_graph(store, repo_name):
    job = jobs.new_job_id()
    jobs.create_job(store, job, repo_name, "HEAD", "0" * 40, "/nowhere", 0)
    jobs.fail_job(store, job, f"cannot fetch https://bot:{URI_PASSWORD}@git.example/org/repo: denied")
    assert jobs.list_jobs(store, job)[0]["errors"] == ["cannot fetch https://bot:***@git.example/org/repo: denied"]


def test_a_manifest_urls_credentials_never_reach_the_graph(tmp_path, store, repo_name):
    """Analysts read every node through `spider cypher`: a job keeps its repository's URL with the token masked."""
    manifest = tmp_path / "org.json"
    token = "ghp_plantedToken0123456789"
    manifest.write_text(json.dumps({"repos": [
        {"url": f"https://{token}@127.0.0.1:9/org/a.git", "name": f"{repo_name}-a"},
        {"url": f"https://bot:{URI_PASSWORD}@127.0.0.1:9/org/b.git", "name": f"{repo_name}-b"}]}))

    # a process of its own: Celery's app, which `org index` runs its jobs on, is configured once per process
    result = run_spider("org", "index", manifest, "--json", "--no-embed",
                        env={"SPIDER_BROKER_URL": "", "SPIDER_REPO_CACHE": str(tmp_path / "cache")}, timeout=120)

    assert result.returncode == 1 and [o["status"] for o in json.loads(result.stdout)] == ["failed", "failed"]
    rows, _, _ = store.driver.execute_query("MATCH (j:IndexJob) WHERE j.repo STARTS WITH $repo RETURN properties(j) "
                                            "AS job", repo=repo_name, database_=store.settings.database)
    stored = json.dumps([row["job"] for row in rows], default=str)
    assert len(rows) == 2 and token not in stored and URI_PASSWORD not in stored
    assert "https://***@127.0.0.1:9/org/a.git" in stored and "https://bot:***@127.0.0.1:9/org/b.git" in stored


def test_no_output_shows_a_planted_secret(failures, neo4j_settings):
    shown = b"".join(result.stdout + result.stderr for result, _, _ in failures.values()).decode()
    secrets = [value.removeprefix("redis://:").partition("@")[0] for value in PLANTED.values()]
    for secret in [*secrets, URI_PASSWORD, neo4j_settings.password]:
        assert secret not in shown
    assert shown.count(":***@") == 2  # the URIs' passwords, masked where the lines show them
