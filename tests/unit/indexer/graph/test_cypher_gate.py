"""The gate's classification of the server's plans (shaped as Neo4j 2026.08 returns them) and of parameters."""

from __future__ import annotations

from functools import reduce

import pytest
from spider.core.errors import SpiderError
from spider.indexer.graph.cypher_gate import check_params, plan_refusal, plugin_refusal


def op(operator: str, *children: dict, details: str | None = None, database: str = "neo4j") -> dict:
    args = {"Details": details} if details is not None else {}
    return {"operatorType": f"{operator}@{database}", "args": args, "children": list(children)}


READ = op("ProduceResults", op("Filter", op("NodeIndexSeek", details="f:Function(repo, id)")))


@pytest.mark.parametrize("query_type, plan", [
    ("r", READ),
    ("r", op("ProduceResults", op("ProcedureCall", details="db.labels() :: (label :: STRING)"))),
    ("r", op("ProduceResults", op("ProcedureCall", details="db.schema.visualization() :: (nodes :: LIST<NODE>)"))),
], ids=["match", "db.labels", "db.schema.visualization"])
def test_plain_reads_and_the_read_procedures_pass(query_type, plan):
    assert plan_refusal(query_type, plan, "neo4j") is None


@pytest.mark.parametrize("query_type, plan, reason", [
    ("r", op("ProduceResults", op("Apply", READ, op("LoadCSV"))), "LOAD CSV reads files and URLs"),
    ("r", op("ProduceResults", op("TransactionApply", READ)), "CALL { } IN TRANSACTIONS commits on its own"),
    ("r", op("ProduceResults", op("TerminateTransactions")), "administration commands (TerminateTransactions)"),
    ("r", op("ProduceResults", op("ShowSettings")), "administration commands (ShowSettings)"),
    ("s", op("AdministrationCommand", database="system"), "administration commands (AdministrationCommand)"),
    ("s", op("ProduceResults", op("ProcedureCall", details="db.clearQueryCaches() :: (value :: STRING)")),
     "procedure db.clearQueryCaches is not allowed"),
    ("r", op("ProduceResults", op("ProcedureCall", details="dbms.listConfig() :: (name :: STRING)")),
     "procedure dbms.listConfig is not allowed"),
    ("r", op("ProduceResults", op("ProcedureCall")), "procedure ? is not allowed"),
    ("rw", op("ProduceResults", op("Create")), "it writes to the graph"),
    ("w", op("EmptyResult", op("Create")), "it writes to the graph"),
    ("s", op("CreateIndex"), "it changes the schema or is an administration command"),
    ("r", op("ProduceResults", database="other"), "it runs on database 'other'"),
    ("r", None, "the server did not plan it as a read query"),
    (None, READ, "the server did not plan it as a read query"),
], ids=["load_csv", "in_transactions", "terminate", "show", "admin", "clear_caches", "list_config", "nameless",
        "rw", "w", "schema", "other_database", "no_plan", "no_type"])
def test_everything_else_is_refused_with_its_reason(query_type, plan, reason):
    assert plan_refusal(query_type, plan, "neo4j").startswith(reason)


@pytest.mark.parametrize("params", [
    {"n": 2**63 - 1, "m": -(2**63), "x": 1.5, "b": True, "z": None, "l": [[{"k": "v"}]]},
    {"deep": [[[[[[[[1]]]]]]]]},
])
def test_parameters_bolt_can_carry_pass(params):
    check_params(params)


@pytest.mark.parametrize("params, message", [
    ({"n": 2**63}, "parameter 'n' is outside Neo4j's 64-bit integer range"),
    ({"n": [-(2**63) - 1]}, "parameter 'n' is outside Neo4j's 64-bit integer range"),
    ({"id": "caf\udce9"}, "parameter 'id' is not valid UTF-8 text"),
    ({"id\udcff": 1}, "parameter name 'id\\udcff' is not valid UTF-8 text"),
    ({"m": {"k\udcff": 1}}, "parameter 'm' is not valid UTF-8 text"),
    ({"d": reduce(lambda inner, _: [inner], range(70), [])}, "parameter 'd' is nested more than 64 levels deep"),
    ({"o": object()}, "parameter 'o' has a type Neo4j does not take (object)"),
])
def test_parameters_bolt_cannot_carry_are_one_line_errors(params, message):
    with pytest.raises(SpiderError) as refused:
        check_params(params)
    assert str(refused.value) == message


APOC = ["apoc.coll.max", "apoc.cypher.runFirstColumnSingle"]


@pytest.mark.parametrize("text", [
    "RETURN apoc.cypher.runFirstColumnSingle('LOAD CSV FROM \\'file:///etc/passwd\\' AS l RETURN l', {})",
    "RETURN `APOC`.`cypher`.runFirstColumnSingle('RETURN 1', {})",
    "RETURN Apoc . coll . max([1, 2])",
])
def test_a_statement_naming_a_plugin_function_namespace_is_refused(text):
    assert plugin_refusal(text, APOC) == "functions of plugins (apoc.*) are not allowed"


@pytest.mark.parametrize("text, plugins", [
    ("MATCH (f:Function) RETURN max(f.start_line) AS apocalypse", APOC),
    ("RETURN apoc.coll.max([1])", []),
])
def test_built_in_functions_and_a_server_without_plugins_pass(text, plugins):
    assert plugin_refusal(text, plugins) is None
