"""What a query returns and how it is printed: a table for people, JSON with every field for agents.

Every result says why it is there: its place in the first-stage ranking, and for graph items the seed it was
reached from, the hop count, the relationships walked and the selector's verdict.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum

from spider import cypher
from spider.core.terminal import printable, render_table
from spider.indexer.graph.store import GraphStore
from spider.query.select.stage2 import Decision


class Method(StrEnum):
    """How a query ranks: a first stage alone (der: dense, bm25, hybrid: both fused with the functions the issue
    names), or with the graph steps over one (spider: over --first-stage, hybrid by default; spisr: over BM25)."""

    DER = "der"
    BM25 = "bm25"
    HYBRID = "hybrid"
    SPIDER = "spider"
    SPISR = "spisr"


class Origin(StrEnum):
    """Where a result comes from: a first-stage ranking (hybrid: `mentioned` where the issue names it), or the
    graph expansion of a seed."""

    DENSE = "dense"
    BM25 = "bm25"
    HYBRID = "hybrid"
    MENTIONED = "mentioned"
    GRAPH = "graph"


class Verdict(StrEnum):
    """What became of a result the selector saw (a result it was not offered has none)."""

    SEED = "seed"
    ADMITTED = "admitted"
    REJECTED = "rejected"


@dataclass
class Result:
    rank: int
    id: str
    score: float
    path: str = ""
    start_line: int | None = None
    end_line: int | None = None
    dense_rank: int | None = None  # place in the first-stage ranking (dense, BM25 or hybrid, as `method` says)
    origin: Origin = Origin.DENSE
    fused_from: dict[str, int] | None = None  # hybrid: places in the dense and BM25 rankings it was fused from
    named: str | None = None  # hybrid: how the issue names it ("a stack-trace frame", "its name", ...)
    seed: str | None = None  # graph items: the seed they were reached from
    hops: int | None = None
    edge_path: list[str] | None = None  # e.g. ["<-CONTAINS-", "-CONTAINS->"]
    verdict: Verdict | None = None  # None: not offered to the selector

    @property
    def lines(self) -> str:
        return f"{self.start_line}-{self.end_line}" if self.start_line else ""

    def why(self) -> str:
        if self.origin != Origin.GRAPH:
            shown = self.verdict in (Verdict.SEED, Verdict.ADMITTED)
            return f"{self.first_stage_why()}" + (f" ({self.verdict})" if shown else "")
        path = " ".join(self.edge_path or [])
        return f"graph, {self.hops} hop(s) from {self.seed} [{path}], {self.verdict}; was #{self.dense_rank}"

    def first_stage_why(self) -> str:
        """`hybrid #3 (dense #5, bm25 #2)`; `named in the issue (a stack-trace frame), hybrid #1 (bm25 #40)`."""
        said = f"hybrid #{self.dense_rank}" if self.origin == Origin.MENTIONED else f"{self.origin} #{self.dense_rank}"
        places = ", ".join(f"{stage} #{place}" for stage, place in (self.fused_from or {}).items())
        said += f" ({places or 'neither dense nor bm25 top-n'})" if self.fused_from is not None else ""
        return f"named in the issue ({self.named}), {said}" if self.named else said


@dataclass(kw_only=True)
class Answer:
    repo: str
    snapshot: str
    method: Method
    k: int
    results: list[Result]
    seconds: dict[str, float] = field(default_factory=dict)
    model: str | None = None  # embedding model (der, hybrid, spider)
    first_stage: Origin | None = None  # the ranking the answer starts from: dense, bm25 or hybrid
    tests: str | None = None  # what became of test code: exclude, demote, include
    selector: str | None = None  # spider, spisr
    edges: str | None = None
    summary: dict[str, int] = field(default_factory=dict)  # seeds, proposals, offered, admitted, displaced, tokens
    displaced: list[Result] = field(default_factory=list)
    calls: list[Decision] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        payload = asdict(self)
        for rows, results in ((payload["results"], self.results), (payload["displaced"], self.displaced)):
            for row, result in zip(rows, results):
                row["lines"] = result.lines
        return json.dumps(payload, indent=2)

    def to_table(self) -> str:
        explained = self.selector is not None or self.first_stage == Origin.HYBRID
        header = ["rank", "score", "id", "path:lines"] + (["why"] if explained else [])
        rows = [[str(r.rank), f"{r.score:.4f}", r.id, f"{r.path}:{r.lines}"] + ([r.why()] if explained else [])
                for r in self.results]
        below = [f"displaced: {item.id}, {item.first_stage_why()}" for item in self.displaced]
        for call in self.calls:
            if call.status != "ok":
                below.append(f"seed {call.seed}: {call.status} ({call.detail}); admitted nothing")
            elif call.ignored:
                below.append(f"seed {call.seed}: ignored {len(call.ignored)} id(s) that were not offered")
        below.extend(f"note: {note}" for note in self.notes)
        below.append(self.headline())
        # ids, paths and notes come from outside: no control characters (render_table escapes the cells)
        return "\n".join([render_table(header, rows, max_cell=None, rule=False)] + [printable(line) for line in below])

    def headline(self) -> str:
        timing = ", ".join(f"{stage} {seconds:.3f}s" for stage, seconds in self.seconds.items())
        model = f", model {self.model}" if self.model else ""
        first = f", first stage {self.first_stage}" if self.selector is not None and self.first_stage else ""
        tests = f", tests {self.tests}d" if self.tests else ""
        line = f"{self.method} top-{self.k} of {self.repo} @ {self.snapshot[:12]}{first}{model}{tests}"
        if self.selector is not None:
            s = self.summary
            line += (f", selector {self.selector}, edges {self.edges}: {s['proposals']} proposal(s) from "
                     f"{s['seeds']} seed(s), {s['admitted']} admitted, {s['displaced']} displaced; "
                     f"tokens {s['tokens_in']} in / {s['tokens_out']} out")
        return f"{line}: {timing}"


def function_info(store: GraphStore, repo: str, snapshot: str, ids: list[str], with_code: bool = False) -> dict[str, dict]:
    """Where each function is (path, lines, language), by id; and its code when asked."""
    params = {"repo": repo, "snapshot": snapshot, "ids": ids, "with_code": with_code}
    keys, rows = store.read(cypher.load("functions_by_id"), params)
    return {row[0]: dict(zip(keys, row)) for row in rows}


def ranked(
    store: GraphStore, repo: str, snapshot: str, scored: list[tuple[str, float]], origin: Origin
) -> list[Result]:
    """Number the (id, score) pairs of a first-stage ranking and fill in where each function is."""
    where = function_info(store, repo, snapshot, [node_id for node_id, _ in scored])
    return [located(Result(rank, node_id, round(score, 6), dense_rank=rank, origin=origin), where)
            for rank, (node_id, score) in enumerate(scored, start=1)]


def located(result: Result, where: dict[str, dict]) -> Result:
    info = where.get(result.id, {})
    result.path, result.start_line, result.end_line = info.get("path", ""), info.get("start_line"), info.get("end_line")
    return result
