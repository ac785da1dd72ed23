"""The query side's reads of a snapshot's functions, by id (`cypher/functions_by_id.cypher`)."""

from __future__ import annotations

from dataclasses import dataclass

from spider import cypher
from spider.indexer.graph.store import GraphStore


@dataclass(frozen=True)
class FunctionInfo:
    """Where a function is; with `with_code`, also what only the selectors read (its code and degree)."""

    id: str
    path: str
    start_line: int
    end_line: int
    language: str | None
    kind: str | None
    code: str | None = None
    degree: int | None = None  # relationships of any type, either direction


def function_info(store: GraphStore, repo: str, snapshot: str, ids: list[str],
                  with_code: bool = False) -> dict[str, FunctionInfo]:
    """Where each function is (path, lines, language), by id; and its code and degree when asked."""
    params = {"repo": repo, "snapshot": snapshot, "ids": ids, "with_code": with_code}
    keys, rows = store.read(cypher.load("functions_by_id"), params)
    return {row[0]: FunctionInfo(**dict(zip(keys, row))) for row in rows}
