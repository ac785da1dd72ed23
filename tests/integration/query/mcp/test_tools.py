"""Every tool of `spider mcp` through the SDK's own client, in memory, against the real Neo4j and vector store:
the structured output, the budget, ambiguous ids, a write through `cypher`, errors, and masked secrets."""

from __future__ import annotations

import json
from importlib.metadata import version
from math import ceil

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult
from spider.indexer import open_stores
from spider.query import localize
from spider.query.mcp import INSTRUCTIONS, TOOLS, build_server
from spider.query.mcp.budget import MIN_MAX_TOKENS

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import PYTHON
from tests.integration.helpers import ISSUE, index_json, unique_name
from tests.integration.query.mcp.conftest import (
    LONG_CODE,
    PLANTED_KEY,
    call_tools,
    error_text,
    received_tokens,
    structured,
)


@pytest.fixture(scope="module")
def server(indexed):
    with open_stores() as stores:
        yield build_server(stores)


def call(server, name: str, **arguments) -> CallToolResult:
    return call_tools(server, lambda client: client.call_tool(name, arguments))


def test_every_tool_is_read_only_typed_described_and_structured(server):
    async def listing(client):
        return (await client.list_tools()).tools, client.instructions, client.server_info

    tools, instructions, info = call_tools(server, listing)
    assert (info.name, info.version) == ("spider", version("spider-code"))  # the installed spider's version
    assert [tool.name for tool in tools] == list(TOOLS)
    for tool in tools:
        assert tool.annotations.read_only_hint and not tool.annotations.destructive_hint, tool.name
        assert tool.input_schema["type"] == "object" and tool.output_schema["type"] == "object", tool.name
        assert "\n" not in tool.description and len(tool.description) > 150, tool.name
    assert "before" in next(tool for tool in tools if tool.name == "localize").description
    assert instructions == INSTRUCTIONS
    assert INSTRUCTIONS.index("localize(") < INSTRUCTIONS.index("code(") < INSTRUCTIONS.index("neighbourhood(")


def test_localize_answers_exactly_k_functions_as_the_python_api_does(server, indexed):
    answer = structured(call(server, "localize", issue=ISSUE, repo=indexed.repo, k=5, selector="learned"))
    assert (answer["repo"], answer["snapshot"], answer["k"], answer["method"]) == (indexed.repo, indexed.new, 5,
                                                                                  "spider")
    with open_stores() as stores:
        expected = localize(stores, ISSUE, repo=indexed.repo, k=5, selector="learned")
    assert [hit["id"] for hit in answer["results"]] == [r.id for r in expected.results]
    assert [hit["why"] for hit in answer["results"]] == [r.why() for r in expected.results]
    for hit, result in zip(answer["results"], expected.results):
        assert (hit["path"], hit["start_line"], hit["end_line"]) == (result.path, result.start_line, result.end_line)
        assert (hit["origin"], hit["fused_from"], hit["named"]) == (result.origin, result.fused_from, result.named)
    assert set(answer["summary"]) >= {"seeds", "proposals", "admitted", "displaced"}
    assert answer["headline"].startswith(f"spider top-5 of {indexed.repo} @ {indexed.new[:12]}")
    assert answer["dropped"] is None and answer["first_stage"] == "hybrid"


def test_localize_takes_a_method_edges_and_a_revision(server, indexed):
    answer = structured(call(server, "localize", issue=ISSUE, repo=indexed.repo, rev=indexed.old[:8], k=3,
                             method="spider", selector="all", edges="invokes:1"))
    assert answer["snapshot"] == indexed.old and answer["edges"] == "invokes:1"
    dense = structured(call(server, "localize", issue=ISSUE, repo=indexed.repo, k=4, method="bm25"))
    assert len(dense["results"]) == 4 and {hit["origin"] for hit in dense["results"]} == {"bm25"}


def test_code_reads_a_function_by_id_or_by_a_unique_tail_of_it(server, indexed):
    by_id = structured(call(server, "code", id="shop/payments.py:Receipt.render", repo=indexed.repo))
    assert by_id["code"].startswith("    def render(self):") and by_id["path"] == "shop/payments.py"
    assert (by_id["start_line"], by_id["language"], by_id["ambiguous"]) == (27, "python", None)
    for tail in ("Receipt.render", "payments.py:Receipt.render", "render"):
        assert structured(call(server, "code", id=tail, repo=indexed.repo))["id"] == by_id["id"]
    old = structured(call(server, "code", id="shop/payments.py:_send", repo=indexed.repo, rev=indexed.old))
    new = structured(call(server, "code", id="shop/payments.py:_send", repo=indexed.repo))
    assert "return amount\n" in old["code"] + "\n" and "round(amount, 2)" in new["code"]


def test_an_ambiguous_name_answers_with_a_ranked_list_not_a_guess(server, indexed):
    answer = structured(call(server, "code", id="total", repo=indexed.repo))
    assert answer["id"] is None and answer["code"] is None
    listed = [candidate["id"] for candidate in answer["ambiguous"]["candidates"]]
    assert set(listed) == {"shop/models.py:Item.total", "shop/models.py:Order.total",
                           "shop/models.py:DiscountedOrder.total"}
    assert answer["ambiguous"]["more"] == 0 and answer["ambiguous"]["wanted"] == "total"
    callers = structured(call(server, "callers", id="__init__", repo=indexed.repo))
    assert callers["id"] is None and len(callers["ambiguous"]["candidates"]) == 3
    qualified = structured(call(server, "code", id="Order.total", repo=indexed.repo))  # a qualified name is exact
    assert qualified["id"] == "shop/models.py:Order.total"


def test_callers_callees_and_the_neighbourhood_follow_the_graph(server, indexed):
    callers = structured(call(server, "callers", id="shop/payments.py:charge", repo=indexed.repo))
    assert [(r["id"], r["resolution"]) for r in callers["related"]] == [("shop/service.py:checkout", "import")]
    callees = structured(call(server, "callees", id="checkout", repo=indexed.repo))
    assert {r["id"] for r in callees["related"]} >= {"shop/payments.py:charge", "shop/payments.py:receipt"}
    assert callees["id"] == "shop/service.py:checkout" and callees["relation"] == "callees"
    near = structured(call(server, "neighbourhood", id="shop/payments.py:charge", edges=["INVOKES"], depth=1,
                           repo=indexed.repo))
    assert {(r["id"], r["hops"]) for r in near["related"]} == {("shop/service.py:checkout", 1),
                                                                ("shop/payments.py:_send", 1)}
    assert near["relation"] == "neighbourhood (INVOKES, depth 1)"
    wide = structured(call(server, "neighbourhood", id="shop/payments.py:charge", repo=indexed.repo))
    assert len(wide["related"]) > len(near["related"]) and wide["related"][0]["hops"] == 1


def test_file_outline_lists_a_file_in_source_order(server, indexed):
    outline = structured(call(server, "file_outline", path="payments.py", repo=indexed.repo))
    assert outline["path"] == "shop/payments.py"
    assert [(e["id"], e["depth"]) for e in outline["entries"]] == [
        ("shop/payments.py:charge", 1), ("shop/payments.py:_send", 1), ("shop/payments.py:receipt", 1),
        ("shop/payments.py:Receipt", 1), ("shop/payments.py:Receipt.__init__", 2),
        ("shop/payments.py:Receipt.header", 2), ("shop/payments.py:Receipt.render", 2)]


def test_repos_lists_snapshots_with_completeness_and_model(server, indexed):
    listing = structured(call(server, "repos"))
    (ours,) = [repo for repo in listing["repositories"] if repo["repo"] == indexed.repo]
    assert [s["snapshot"] for s in ours["snapshots"]] == [indexed.new, indexed.old]
    assert all(s["complete"] and s["embedding_model"] == "test/tiny" and s["nodes"] > 20 for s in ours["snapshots"])


def test_repos_lists_the_repository_indexed_last_first(server, tmp_path):
    """Under a tight budget the freshest repositories are the ones kept: an agent checking whether its checkout is
    indexed finds it first, however many repositories sort before it by name."""
    root, _ = make_repo(tmp_path / "late", PYTHON.files)
    name = f"zz-{unique_name()}"  # sorts after every other test's repository
    index_json(root, name, "--no-embed")

    listing = structured(call(server, "repos", max_tokens=MIN_MAX_TOKENS))

    assert listing["repositories"][0]["repo"] == name


def test_changed_reports_what_snapshots_diff_does(server, indexed):
    answer = structured(call(server, "changed", repo=indexed.repo, old=indexed.old[:7], new="HEAD"))
    assert (answer["old"], answer["snapshot"]) == (indexed.old, indexed.new)
    assert {"kind": "nodes_changed", "key": ["Function", "shop/payments.py:_send"]} in answer["changes"]
    assert answer["counts"]["nodes_added"] == 0 and sum(answer["counts"].values()) == len(answer["changes"])


def test_cypher_runs_reads_and_named_queries_and_refuses_a_write(server, indexed, store):
    count = "MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot}) MATCH (f:Function {repo: $repo}) " \
            "WHERE f.since <= v.seq < f.until RETURN count(f) AS functions"
    rows = structured(call(server, "cypher", statement=count, repo=indexed.repo))
    assert rows["rows"] == [{"functions": 18}] and rows["snapshot"] == indexed.new and rows["columns"] == ["functions"]
    named = structured(call(server, "cypher", statement="callers", params={"id": "shop/payments.py:charge"},
                            repo=indexed.repo))
    assert [row["caller"] for row in named["rows"]] == ["shop/service.py:checkout"]
    for write in ("CREATE (n:Function {repo: 'mcp-evil', id: 'x'}) RETURN n",
                  "MATCH (f:Function {repo: $repo}) DETACH DELETE f",
                  "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l"):
        assert "refused" in error_text(call(server, "cypher", statement=write, repo=indexed.repo))
    assert store.read("MATCH (n {repo: 'mcp-evil'}) RETURN count(n)", {})[1] == [[0]]
    assert structured(call(server, "cypher", statement=count, repo=indexed.repo))["rows"] == [{"functions": 18}]


def test_every_answer_fits_its_budget_dropping_whole_items(server, indexed):
    every = "MATCH (f:Function {repo: $repo}) RETURN f.id AS id, f.code AS code ORDER BY id"
    full = structured(call(server, "cypher", statement=every, repo=indexed.repo))
    small = structured(call(server, "cypher", statement=every, repo=indexed.repo, max_tokens=1000))
    kept = small["dropped"]["kept"]
    assert small["rows"] == full["rows"][:kept] and small["dropped"]["items"] == len(full["rows"]) - kept > 0
    assert "max_tokens=1000" in small["dropped"]["note"]
    every_hit = structured(call(server, "localize", issue=ISSUE, repo=indexed.repo, k=20, selector="none"))
    hits = structured(call(server, "localize", issue=ISSUE, repo=indexed.repo, k=20, selector="none",
                           max_tokens=1500))
    assert 0 < len(hits["results"]) < len(every_hit["results"]) and every_hit["dropped"] is None
    assert hits["results"] == every_hit["results"][:len(hits["results"])]
    assert hits["dropped"]["items"] == len(every_hit["results"]) - len(hits["results"])
    short = structured(call(server, "code", id="checkout", repo=indexed.repo, max_tokens=1000))
    assert short["code"].startswith("def checkout(") and short["dropped"] is None
    long = structured(call(server, "code", id="long_report", repo=indexed.repo, max_tokens=1000))
    assert long["code"] is None and (long["path"], long["start_line"], long["end_line"]) == ("shop/report.py", 1, 83)
    assert long["dropped"]["items"] == 1 and "read shop/report.py lines 1-83" in long["dropped"]["note"]
    assert structured(call(server, "code", id="long_report", repo=indexed.repo))["code"] == LONG_CODE


def big_calls(indexed) -> dict[str, dict]:
    """A call of each tool whose whole answer is as long as the shop allows."""
    return {
        "localize": {"issue": ISSUE, "repo": indexed.repo, "k": 20, "selector": "none"},
        "code": {"id": "long_report", "repo": indexed.repo},
        "neighbourhood": {"id": "checkout", "depth": 8, "repo": indexed.repo},
        "callers": {"id": "shop/payments.py:charge", "repo": indexed.repo},
        "callees": {"id": "checkout", "repo": indexed.repo},
        "file_outline": {"path": "shop/models.py", "repo": indexed.repo},
        "repos": {},
        "changed": {"repo": indexed.repo, "old": indexed.old, "new": indexed.new},
        "cypher": {"statement": "MATCH (f:Function {repo: $repo}) RETURN f.id AS id, f.code AS code ORDER BY id",
                   "repo": indexed.repo},
    }


@pytest.mark.parametrize("budget", [MIN_MAX_TOKENS, 4_000])
def test_what_a_client_receives_of_every_tool_fits_the_budget(server, indexed, budget):
    calls = big_calls(indexed)
    assert list(calls) == list(TOOLS)
    for tool, arguments in calls.items():
        result = call(server, tool, **arguments, max_tokens=budget)
        structured(result)  # the text content is the structured content's JSON
        assert ceil(len(result.content[0].text) / 4) <= received_tokens(result) <= budget, tool


def test_twenty_clients_calling_at_once_all_get_the_same_answer(server, indexed):
    """The server runs each call on a worker thread: concurrent calls share the repository's vector shard (issue
    47: 20 clients x 10 calls against one server failed 14 of 40 localize calls with "in use by another spider
    process", the server's own threads locking each other out of the local store)."""
    arguments = {"issue": ISSUE, "repo": indexed.repo, "method": "der", "k": 3}

    async def one_client(answers: list) -> None:
        async with Client(server) as client:
            for _ in range(5):
                answers.append(await client.call_tool("localize", arguments))

    async def twenty_clients() -> list:
        answers: list = []
        async with anyio.create_task_group() as group:
            for _ in range(20):
                group.start_soon(one_client, answers)
        return answers

    answers = anyio.run(twenty_clients)
    assert [error_text(a) for a in answers if a.is_error] == []
    assert len(answers) == 100 and len({json.dumps(structured(a)["results"]) for a in answers}) == 1


def test_a_repository_not_found_names_the_graph_and_the_home_it_was_looked_for_in(server, neo4j_settings,
                                                                                   spider_home):
    """An MCP client starts the server without the shell's environment: the error says where it looked."""
    text = error_text(call(server, "localize", issue=ISSUE, repo="nope/nope"))
    assert text.endswith(f") in the graph at {neo4j_settings.uri} (SPIDER_HOME {spider_home})"), text


def test_unknown_repositories_ids_and_bad_arguments_are_tool_errors_and_the_server_lives_on(server, indexed):
    errors = {
        ("localize", "no repository named 'nope/nope'"): {"issue": ISSUE, "repo": "nope/nope"},
        ("code", "no function 'shop/nowhere.py:ghost'"): {"id": "shop/nowhere.py:ghost", "repo": indexed.repo},
        ("callers", "no function or class 'ghost'"): {"id": "ghost", "repo": indexed.repo},
        ("code", "'shop/payments.py:Receipt' is a class, not a function (file_outline lists what a file or class "
                 "contains)"): {"id": "shop/payments.py:Receipt", "repo": indexed.repo},
        ("code", "'Receipt' names a class (shop/payments.py:Receipt), not a function (file_outline lists what a "
                 "file or class contains)"): {"id": "Receipt", "repo": indexed.repo},
        ("neighbourhood", "'shop/payments.py' is a file, not a function"): {"id": "shop/payments.py",
                                                                            "repo": indexed.repo},
        ("file_outline", "no file 'nowhere.py'"): {"path": "nowhere.py", "repo": indexed.repo},
        ("code", "no complete snapshot of"): {"id": "checkout", "repo": indexed.repo, "rev": "deadbeef"},
        ("changed", "no repository named 'nope'"): {"repo": "nope", "old": "a", "new": "b"},
        ("localize", "edges"): {"issue": ISSUE, "repo": indexed.repo, "edges": "sideways:9"},
        ("localize", "k"): {"issue": ISSUE, "repo": indexed.repo, "k": 0},
        ("neighbourhood", "depth"): {"id": "checkout", "repo": indexed.repo, "depth": 99},
        ("cypher", "Cypher error"): {"statement": "MATCH (n RETURN n"},
        ("localize", "bad arguments: issue: String should have at most 200000 characters"): {"issue": "x" * 200_001},
        ("code", "bad arguments: id: String should have at least 1 character; max_tokens: Input should be "
                 "greater than or equal to 1000"): {"id": "", "max_tokens": 3},
    }
    for (tool, message), arguments in errors.items():
        text = error_text(call(server, tool, **arguments))
        assert message in text and "x" * 50 not in text, (tool, text)  # a value is never echoed
    assert structured(call(server, "repos"))["repositories"]


def test_a_long_value_is_never_echoed_whole_in_an_error_or_an_answer(server, indexed):
    unknown = "shop/" + "g" * 1_985 + ".py:ghost"  # as long as an id may be: 2,000 characters
    text = error_text(call(server, "code", id=unknown, repo=indexed.repo))
    assert len(text) <= 500 and "g" * 300 not in text and "characters]…" in text
    assert text.startswith("Error executing tool code: no function 'shop/ggg") and text.endswith("name them)")
    nameless = error_text(call(server, "t" * 5_000))
    assert len(nameless) <= 500 and "t" * 300 not in nameless
    ambiguous = structured(call(server, "code", id="q" * 1_990 + ".total", repo=indexed.repo))["ambiguous"]
    assert len(ambiguous["wanted"]) <= 200 and len(ambiguous["candidates"]) == 3


def test_no_secret_reaches_a_tool_result(server, indexed, neo4j_settings, monkeypatch):
    monkeypatch.setenv("SPIDER_OPENAI_API_KEY", PLANTED_KEY)  # what redaction masks is read at each call
    code = structured(call(server, "code", id="vendor_token", repo=indexed.repo))
    assert code["code"] == 'def vendor_token():\n    return "***"\n'
    echoed = structured(call(server, "cypher", statement="RETURN $a AS a, $b AS b",
                             params={"a": neo4j_settings.password, "b": f"x {PLANTED_KEY} y"}))
    assert echoed["rows"] == [{"a": "***", "b": "x *** y"}]
    failed = error_text(call(server, "cypher", statement=f"RETURN {PLANTED_KEY}"))
    assert PLANTED_KEY not in failed and neo4j_settings.password not in failed
