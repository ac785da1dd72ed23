"""The one gate for Cypher that people write (`spider cypher`, the MCP server): a read of the code graph, nothing else.

A READ transaction does not stop LOAD CSV (files and URLs), administration commands (SHOW USERS, TERMINATE
TRANSACTIONS) or procedures (db.clearQueryCaches), and sets no time limit. So every statement is first planned by
the server (EXPLAIN, which runs nothing) and refused unless the plan only reads the graph; the plan, not the text,
is the authority, save for functions that plugins add (no plan operator shows a function call). It then runs in a
READ transaction with a timeout the server enforces.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import neo4j
from neo4j.exceptions import ClientError
from neo4j.graph import Node, Path, Relationship
from spider import cypher
from spider.core.errors import InvalidInput, RefusedQuery
from spider.indexer.graph.store import GraphStore

# Procedures that only describe the graph's schema (labels, types, keys): the only ones an analyst may CALL.
READ_PROCEDURES = frozenset({
    "db.labels", "db.relationshipTypes", "db.propertyKeys",
    "db.schema.visualization", "db.schema.nodeTypeProperties", "db.schema.relTypeProperties",
})
_REFUSED_OPERATORS = {
    "LoadCSV": "LOAD CSV reads files and URLs",
    "TransactionApply": "CALL { } IN TRANSACTIONS commits on its own",
    "TransactionForeach": "CALL { } IN TRANSACTIONS commits on its own",
}
_QUERY_TYPES = {"w": "it writes to the graph", "rw": "it writes to the graph",
                "s": "it changes the schema or is an administration command"}
_TIMED_OUT = "Neo.ClientError.Transaction.TransactionTimedOut"  # and ...TransactionTimedOutClientConfiguration
_PLUGIN_FUNCTIONS = "SHOW FUNCTIONS YIELD name, isBuiltIn WHERE NOT isBuiltIn RETURN name"
MAX_PARAM_DEPTH = 64


def _operators(plan: dict) -> Iterator[dict]:
    yield plan
    for child in plan.get("children") or []:
        yield from _operators(child)


def plan_refusal(query_type: str | None, plan: dict | None, database: str) -> str | None:
    """Why the server's plan of a statement is not a plain read of `database`'s graph, or None when it is.

    Administration commands plan on the system database or as Show*/Terminate* operators (SHOW TRANSACTIONS and
    TERMINATE TRANSACTIONS are 'r' queries); anything not understood is refused."""
    for node in _operators(plan) if plan else ():
        operator, _, where = str(node.get("operatorType", "")).partition("@")
        if operator in _REFUSED_OPERATORS:
            return _REFUSED_OPERATORS[operator]
        if operator.startswith(("Show", "Terminate")) or operator == "AdministrationCommand":
            return f"administration commands ({operator}) are not allowed"
        if operator == "ProcedureCall":
            called = str((node.get("args") or {}).get("Details", "")).partition("(")[0].strip()
            if called not in READ_PROCEDURES:
                return f"procedure {called or '?'} is not allowed (only {', '.join(sorted(READ_PROCEDURES))})"
        if where != database:
            return f"it runs on database {where!r}, not on the code graph ({database!r})"
    if query_type != "r" or not plan:
        return _QUERY_TYPES.get(query_type or "", "the server did not plan it as a read query")
    return None


def plugin_refusal(text: str, plugin_functions: list[str]) -> str | None:
    """Why `text` may call a function a plugin added (APOC's apoc.cypher.runFirstColumn runs Cypher the plan does
    not show), or None. Function calls are not plan operators, so the statement is refused when it names a
    plugin function's namespace at all (case and backticks aside): a token cannot be split by comments."""
    words = set(re.findall(r"\w+", text.replace("`", "").lower()))
    for name in plugin_functions:
        if name.split(".")[0].lower() in words:
            return f"functions of plugins ({name.split('.')[0]}.*) are not allowed"
    return None


def check_params(params: dict[str, Any]) -> None:
    """Parameters Bolt can carry: UTF-8 text (no lone surrogates from undecodable argv bytes), 64-bit integers,
    nesting the driver packs without deep recursion. A one-line error instead of the driver's exception."""

    def check(value: Any, where: str, depth: int) -> None:
        if depth > MAX_PARAM_DEPTH:
            raise InvalidInput(f"parameter {where} is nested more than {MAX_PARAM_DEPTH} levels deep")
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise InvalidInput(f"parameter {where} is not valid UTF-8 text") from None
        elif isinstance(value, bool) or value is None or isinstance(value, float):
            return
        elif isinstance(value, int):
            if not -(2**63) <= value < 2**63:
                raise InvalidInput(f"parameter {where} is outside Neo4j's 64-bit integer range")
        elif isinstance(value, list):
            for item in value:
                check(item, where, depth + 1)
        elif isinstance(value, dict):
            for key, item in value.items():
                check(key, where, depth + 1)
                check(item, where, depth + 1)
        else:
            raise InvalidInput(f"parameter {where} has a type Neo4j does not take ({type(value).__name__})")

    for key, value in params.items():
        check(key, "name " + ascii(key), 0)
        check(value, ascii(key), 0)


def check_analyst_query(tx: neo4j.Transaction, text: str, params: dict[str, Any], database: str) -> None:
    """Refuse `text` (RefusedQuery) unless the server's own plan of it only reads `database`'s graph."""
    summary = tx.run("EXPLAIN " + text, params).consume()
    reason = plan_refusal(summary.query_type, summary.plan, database)
    if reason is None:  # a read plan: the transaction may read the function list (not after an admin command)
        reason = plugin_refusal(text, [record["name"] for record in tx.run(_PLUGIN_FUNCTIONS)])
    if reason:
        raise RefusedQuery(f"refused: {reason}; spider runs only read queries of the code graph")


def plain(value: Any) -> Any:
    """A result value as JSON-ready data: a node as its labels, properties and id, a relationship as its type,
    properties, end node ids and id, a path as its nodes and relationships (the fields Neo4j Browser's table shows),
    also inside lists and maps; other values as they are. The driver's objects would print as Python reprs."""
    if isinstance(value, Node):
        return {"labels": sorted(value.labels), "properties": plain(dict(value)), "id": value.element_id}
    if isinstance(value, Relationship):
        start, end = value.nodes
        return {"type": value.type, "properties": plain(dict(value)), "start": start and start.element_id,
                "end": end and end.element_id, "id": value.element_id}
    if isinstance(value, Path):
        return {"nodes": [plain(node) for node in value.nodes],
                "relationships": [plain(relationship) for relationship in value.relationships]}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def fill_scope(store: GraphStore, params: dict[str, Any]) -> None:
    """Fill $repo and $snapshot when the query uses them: the only repo, and its newest complete snapshot. A
    snapshot given must be a complete one of the repo (sha, prefix or revision name): else no rows would say
    nothing about the graph."""
    if "repo" not in params:
        params["repo"] = store.only_repository()
    for key in ("repo", "snapshot"):
        if not isinstance(params.get(key, ""), str):
            raise InvalidInput(f"--param {key} takes a name, not {json.dumps(params[key])[:60]}")
    params["snapshot"] = store.resolve_snapshot(params["repo"], params.get("snapshot"))


def run_analyst_query(store: GraphStore, text: str, params: dict[str, Any],
                      timeout: int) -> tuple[list[str], list[list[Any]]]:
    """Check `text`, then run it in a READ transaction the server stops after `timeout` seconds; rows hold `plain`
    values."""
    check_params(params)
    database = store.settings.database
    try:
        with store.driver.session(database=database, default_access_mode=neo4j.READ_ACCESS) as session, \
                session.begin_transaction(timeout=timeout) as tx:
            check_analyst_query(tx, text, params, database)
            result = tx.run(text, params)
            return list(result.keys()), [[plain(value) for value in record.values()] for record in result]
    except ClientError as exc:
        if (exc.code or "").startswith(_TIMED_OUT):
            raise InvalidInput(f"the query ran longer than {timeout} s and was stopped (SPIDER_CYPHER_TIMEOUT "
                               "sets the limit in seconds)") from None
        raise InvalidInput(f"Cypher error: {exc.message.splitlines()[0] if exc.message else exc.code}") from None


def run_scoped_query(store: GraphStore, text: str, params: dict[str, Any],
                     timeout: int) -> tuple[list[str], list[list[Any]]]:
    """`run_analyst_query` as `spider cypher` and the MCP tool `cypher` run a statement: `params` gets the defaults
    the text declares (`// @param`), and $repo and $snapshot filled (`fill_scope`) when the text uses them."""
    for key, value in cypher.defaults(text).items():
        params.setdefault(key, value)
    if "$repo" in text or "$snapshot" in text:
        fill_scope(store, params)
    return run_analyst_query(store, text, params, timeout)
