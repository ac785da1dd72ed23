"""Step 3 of the query: the graph neighbourhood of the seeds, from one Cypher query (`cypher/expand.cypher`).

Each relationship type is expanded to its own depth; a function reached along several types keeps its shortest
path (tie: the higher-ranked seed, then the type order CONTAINS, INVOKES, IMPORTS, INHERITS). Dense call graphs
flood the neighbourhood, so INVOKES neighbours are capped at the `invokes_cap` best-ranked ones (paper, App.
"Qualitative Analysis"), before the types are merged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spider import cypher
from spider.core.errors import InvalidInput
from spider.core.schema import Rel
from spider.indexer.graph.store import GraphStore

MAX_DEPTH = 6  # expand.cypher has one branch per depth 1..6
INVOKES_CAP = 100
# Both expansions, as the paper's best configuration: on the dev split (bench/results/quality.md) they give the best
# Recall@20 for every selector measured (ceiling 0.602 vs 0.541 contains:4 alone; learned, cross-validated, 0.512
# vs 0.473), at about 3 ms more Cypher per query and twice the neighbours an LLM selector reads.
DEFAULT_EDGES = {Rel.CONTAINS: 4, Rel.INVOKES: 2}
_TYPE_ORDER = {rel: i for i, rel in enumerate((Rel.CONTAINS, Rel.INVOKES, Rel.IMPORTS, Rel.INHERITS))}


@dataclass(frozen=True)
class Neighbour:
    id: str
    seed: str
    hops: int
    rel_type: Rel
    edge_path: tuple[str, ...]  # e.g. ("<-CONTAINS-", "-CONTAINS->"): up to the class, down to a sibling
    via: tuple[str, ...]  # ids of the nodes between the seed and this function


def parse_edges(spec: str) -> dict[Rel, int]:
    """`contains:4,invokes:2` -> {CONTAINS: 4, INVOKES: 2}; each type once, each with its depth."""
    edges: dict[Rel, int] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, _, depth = (text.strip() for text in part.partition(":"))
        try:
            rel = Rel(name.upper())
        except ValueError:
            raise InvalidInput(f"unknown relationship type {name!r} in --edges "
                               f"(choose from {', '.join(r.value.lower() for r in Rel)})") from None
        if rel in edges:
            raise InvalidInput(f"--edges names {rel.value.lower()} twice (give each type once, with one depth)")
        if not depth:
            raise InvalidInput(f"--edges type {rel.value.lower()} has no depth: write TYPE:DEPTH, "
                               f"e.g. {rel.value.lower()}:{DEFAULT_EDGES.get(rel, 2)}")
        if not re.fullmatch(r"[0-9]{1,9}", depth) or not 1 <= int(depth) <= MAX_DEPTH:
            raise InvalidInput(f"depth of {name} in --edges must be a whole number from 1 to {MAX_DEPTH}, got {depth!r}")
        edges[rel] = int(depth)
    if not edges:
        raise InvalidInput("--edges names no relationship type (e.g. contains:4,invokes:2)")
    return edges


def edges_label(edges: dict[Rel, int]) -> str:
    return ",".join(f"{rel.value.lower()}:{depth}" for rel, depth in sorted(edges.items(), key=lambda e: _TYPE_ORDER[e[0]]))


def expand_neighbourhood(
    store: GraphStore,
    repo: str,
    snapshot: str,
    seeds: list[str],
    edges: dict[Rel, int],
    pool: list[str] | None = None,
    invokes_cap: int | None = INVOKES_CAP,
) -> list[Neighbour]:
    """Functions within reach of `seeds` (best first), each once, with the path that reached it.

    `pool` is the ranking the query draws from (best first): only its members come back (Stage 1) and the
    INVOKES cap keeps its best-ranked members. Without a pool every reachable function comes back, uncapped.
    """
    if not seeds:
        return []
    params = {"repo": repo, "snapshot": snapshot, "seeds": seeds,
              "edges": {rel.value: depth for rel, depth in edges.items()}, "pool": pool}
    keys, rows = store.read(cypher.load("expand"), params)
    found = [dict(zip(keys, row)) for row in rows]
    seed_rank = {seed: i for i, seed in enumerate(seeds)}
    if pool is not None and invokes_cap is not None:
        rank = {node_id: i for i, node_id in enumerate(pool)}
        invoked = sorted((r for r in found if r["rel_type"] == Rel.INVOKES), key=lambda r: rank[r["id"]])
        found = [r for r in found if r["rel_type"] != Rel.INVOKES] + invoked[:invokes_cap]
    def preference(row: dict) -> tuple[int, int, int]:
        return row["hops"], seed_rank[row["seed"]], _TYPE_ORDER[Rel(row["rel_type"])]

    best: dict[str, dict] = {}
    for row in found:
        if row["id"] not in best or preference(row) < preference(best[row["id"]]):
            best[row["id"]] = row
    ordered = sorted(best.values(), key=lambda r: (*preference(r)[:2], r["id"]))
    return [Neighbour(r["id"], r["seed"], r["hops"], Rel(r["rel_type"]), tuple(r["edge_path"]), tuple(r["via"]))
            for r in ordered]
