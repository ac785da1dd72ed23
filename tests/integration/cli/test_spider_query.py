"""`spider-query --method spider|spisr` end to end: real Neo4j, Qdrant Edge, the test embedding model, and a
local server that speaks the Anthropic API for the LLM selector. The command runs in this process
(`invoke_spider_query`), but for the README's plain `spider-query ISSUE`, run as a user runs it."""

from __future__ import annotations

import json
import os
import re

import pytest
from spider.indexer.graph.store import GraphStore
from spider.indexer.pipeline.index import index_repository

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.llm_server import FakeLLM, Reply, Seen, fenced_ids
from tests.fixtures.shop import PYTHON
from tests.integration.helpers import ISSUE, invoke_spider_query, spider_query

GRAPH_ARGS = ("-k", "4", "-c", "2", "-n", "50", "--edges", "contains:4,invokes:2")


def answer_of(*args: str, env: dict | None = None) -> dict:
    result = invoke_spider_query(*args, "--json", env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def shop(tmp_path_factory, neo4j_settings) -> str:
    root, _ = make_repo(tmp_path_factory.mktemp("shop"), PYTHON.files)
    repo = f"test/spider-shop-{os.getpid()}"
    with GraphStore(neo4j_settings) as store:
        index_repository(store, str(root), repo=repo, force=True)
    return repo


def no_llm() -> dict:
    return {"ANTHROPIC_API_KEY": "", "SPIDER_OPENAI_BASE_URL": ""}


def check_explained(answer: dict) -> None:
    """Graph items sit right below their seed (or another item of that seed) and carry their path."""
    ids = [r["id"] for r in answer["results"]]
    for position, result in enumerate(answer["results"]):
        assert result["rank"] == position + 1 and result["dense_rank"] >= 1
        if result["origin"] == "graph":
            assert result["verdict"] == "admitted" and result["hops"] == len(result["edge_path"]) >= 1
            above = answer["results"][position - 1]
            assert above["id"] == result["seed"] or (above["origin"] == "graph" and above["seed"] == result["seed"])
            assert result["seed"] in ids[:position]


def test_selector_none_answers_exactly_like_its_first_stage(shop):
    der = answer_of(ISSUE, "--repo", shop, "--method", "der", "-k", "4")
    spider = answer_of(ISSUE, "--repo", shop, "--method", "spider", "--first-stage", "dense", "--selector", "none",
                       *GRAPH_ARGS)

    assert [r["id"] for r in spider["results"]] == [r["id"] for r in der["results"]]
    assert spider["summary"]["admitted"] == spider["summary"]["displaced"] == 0
    assert spider["summary"]["proposals"] > 0 and spider["selector"] == "none"


def test_selector_all_is_the_ceiling_and_is_flagged(shop):
    answer = answer_of(ISSUE, "--repo", shop, "--method", "spider", "--selector", "all", *GRAPH_ARGS)

    graph = [r for r in answer["results"] if r["origin"] == "graph"]
    assert len(answer["results"]) == 4 + answer["summary"]["proposals"] and len(graph) == answer["summary"]["proposals"]
    assert answer["summary"]["displaced"] == 0 and any("more than k=4" in note for note in answer["notes"])
    check_explained(answer)


def test_llm_selector_exchanges_within_the_budget_and_explains(shop, tmp_path):
    def admit_every_offered(seen: Seen, attempt: int) -> Reply:
        return Reply(json.dumps({"selected": fenced_ids(seen.user)}))

    with FakeLLM(admit_every_offered) as server:
        env = {"ANTHROPIC_API_KEY": "test", "ANTHROPIC_BASE_URL": server.url, "SPIDER_LLM_CACHE": str(tmp_path)}
        answer = answer_of(ISSUE, "--repo", shop, "--method", "spider", "--first-stage", "dense",  # proposals below
                           "--selector", "anthropic", "--model", "claude-test", *GRAPH_ARGS, env=env)  # its top 4

    assert len(answer["results"]) == 4 and len({r["id"] for r in answer["results"]}) == 4
    seeds = [r["id"] for r in answer["results"] if r["verdict"] == "seed"]
    assert len(seeds) == 2 and answer["selector"] == "anthropic (claude-test)"
    graph = [r for r in answer["results"] if r["origin"] == "graph"]
    summary = answer["summary"]
    assert len(graph) == summary["admitted"] == summary["displaced"] == len(answer["displaced"]) >= 1
    assert summary["calls"] == len(answer["calls"]) == len(server.requests) <= 2
    for seen in server.requests:  # the selector reads the code of the seed and of every neighbour from the graph
        blocks = re.split(r"^### \[(?:center|nbr_\d+)\]$", seen.user, flags=re.MULTILINE)[1:]
        assert blocks and all(re.search(r"^\s*def \w+\(", b, re.MULTILINE) for b in blocks)
    assert summary["tokens_in"] == sum(c["tokens_in"] for c in answer["calls"]) > 0
    check_explained(answer)


def test_a_failing_seed_call_costs_only_that_seed(shop, tmp_path):
    def second_seed_fails(seen: Seen, attempt: int) -> Reply:
        if "(2/2)" in seen.user:
            return Reply(status=500, headers={"retry-after-ms": "1", "retry-after": "0"})
        return Reply('{"selected": []}')

    with FakeLLM(second_seed_fails) as server:
        env = {"ANTHROPIC_API_KEY": "test", "ANTHROPIC_BASE_URL": server.url, "SPIDER_LLM_TIMEOUT": "5",
               "SPIDER_LLM_CACHE": str(tmp_path)}
        result = invoke_spider_query(ISSUE, "--repo", shop, "--method", "spider", "--selector", "anthropic",
                                     *GRAPH_ARGS, env=env)

    assert result.returncode == 0, result.stderr
    failures = [line for line in result.stdout.splitlines() if "API error" in line]
    assert len(failures) == 1 and failures[0].endswith("admitted nothing")
    assert "selector anthropic" in result.stdout.splitlines()[-1]


def test_a_deeply_nested_answer_costs_only_that_seed(shop, tmp_path):
    def second_seed_nests(seen: Seen, attempt: int) -> Reply:
        return Reply('{"selected": ' + "[" * 1_000 if "(2/2)" in seen.user else '{"selected": []}')

    with FakeLLM(second_seed_nests) as server:
        env = {"ANTHROPIC_API_KEY": "test", "ANTHROPIC_BASE_URL": server.url, "SPIDER_LLM_CACHE": str(tmp_path)}
        answer = answer_of(ISSUE, "--repo", shop, "--method", "spider", "--selector", "anthropic", *GRAPH_ARGS, env=env)

    assert [c["status"] for c in answer["calls"]] == ["ok", "malformed answer"] and len(answer["results"]) == 4
    assert answer["calls"][1]["admitted"] == [] and answer["summary"]["failed_calls"] == 1


def test_a_long_issue_is_cut_for_the_selector_and_the_answer_says_so(shop, tmp_path):
    with FakeLLM(lambda seen, attempt: Reply('{"selected": []}')) as server:
        env = {"ANTHROPIC_API_KEY": "test", "ANTHROPIC_BASE_URL": server.url, "SPIDER_LLM_CACHE": str(tmp_path),
               "SPIDER_LLM_ISSUE_TOKENS": "50"}
        long_issue = ISSUE + "\n\n" + "the order total is wrong again. " * 2_000
        answer = answer_of(long_issue, "--repo", shop, "--selector", "anthropic", *GRAPH_ARGS, env=env)
        table = invoke_spider_query(long_issue, "--repo", shop, "--selector", "anthropic", *GRAPH_ARGS, env=env)

    assert all(ISSUE in seen.user and len(seen.user) < 64_000 // 4 for seen in server.requests)
    assert all(call["issue_cut"] > 60_000 for call in answer["calls"])
    whole = len(long_issue.strip())
    read = whole - answer["calls"][0]["issue_cut"]
    assert f"the selector read the first {read:,} of the issue's {whole:,} characters" in answer["notes"][0]
    assert "note: the selector read the first" in table.stdout


def test_spisr_expands_the_bm25_ranking(shop):
    bm25 = answer_of(ISSUE, "--repo", shop, "--method", "bm25", "-k", "4")
    answer = answer_of(ISSUE, "--repo", shop, "--method", "spisr", "--selector", "all", *GRAPH_ARGS)

    assert [r["id"] for r in answer["results"] if r["origin"] == "bm25"] == [r["id"] for r in bm25["results"]]
    assert answer["model"] is None and answer["summary"]["proposals"] >= 1
    check_explained(answer)


def test_default_selector_without_an_llm_is_learned_and_says_so(shop):
    result = spider_query(ISSUE, "--repo", shop, *GRAPH_ARGS, env=no_llm())  # a process of its own: as users run it
    assert result.returncode == 0, result.stderr
    assert "no LLM configured" in result.stdout and "selector learned" in result.stdout.splitlines()[-1]


def test_without_edges_the_expansion_is_contains_and_invokes(shop):
    answer = answer_of(ISSUE, "--repo", shop, "-k", "4", "-c", "2", "-n", "50", "--selector", "all")
    assert answer["edges"] == "contains:4,invokes:2"


@pytest.mark.parametrize("args", [("-k", "3"), ("-k", "3", "-c", "9")], ids=["default c", "c given"])
def test_more_seeds_than_results_are_capped_at_k_and_said(shop, args):
    answer = answer_of(ISSUE, "--repo", shop, "--selector", "all", "-n", "50", *args)
    table = invoke_spider_query(ISSUE, "--repo", shop, "--selector", "none", "-n", "50", *args)

    assert sum(r["verdict"] == "seed" for r in answer["results"]) == answer["summary"]["seeds"] == 3
    assert any(note.startswith("-c capped at -k: 3 seeds") for note in answer["notes"])
    assert table.returncode == 0 and len(re.findall(r"^\d+ ", table.stdout, re.MULTILINE)) == 3
    assert "note: -c capped at -k: 3 seeds" in table.stdout


@pytest.mark.parametrize("args, message", [
    (("--edges", "calls:2"), "unknown relationship type 'calls'"),
    (("-k", "60", "-n", "50"), "need 1 <= c <= k <= n"),
    (("--edges", "contains:4,contains:2"), "--edges names contains twice"),
    (("--edges", "invokes"), "--edges type invokes has no depth: write TYPE:DEPTH"),
    (("--selector", "anthropic"), "needs ANTHROPIC_API_KEY"),
    (("--selector", "openai"), "needs SPIDER_OPENAI_BASE_URL"),
])
def test_option_errors_are_one_line(shop, args, message):
    result = invoke_spider_query(ISSUE, "--repo", shop, *args, env=no_llm())
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and message in lines[0], result.stderr
