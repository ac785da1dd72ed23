"""What a query returns: the records of an answer (its results, the selector's calls, the summary counts).

Why each result is there is filled in by `explain.py` (a result says it in words: `Result.why`); the table and the
JSON are `render.py`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


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
    """One function of an answer, and why it is there (`why()` says it in words)."""

    rank: int
    id: str
    score: float
    path: str = ""
    start_line: int | None = None
    end_line: int | None = None
    first_stage_rank: int | None = None  # place in the first-stage ranking (dense, BM25 or hybrid); JSON: dense_rank
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
        """Why it is there, in words: its first-stage place (and seed/admitted), or the graph path and verdict."""
        if self.origin != Origin.GRAPH:
            shown = self.verdict in (Verdict.SEED, Verdict.ADMITTED)
            return f"{self.first_stage_why()}" + (f" ({self.verdict})" if shown else "")
        path = " ".join(self.edge_path or [])
        return f"graph, {self.hops} hop(s) from {self.seed} [{path}], {self.verdict}; was #{self.first_stage_rank}"

    def first_stage_why(self) -> str:
        """`hybrid #3 (dense #5, bm25 #2)`; `named in the issue (a stack-trace frame), hybrid #1 (bm25 #40)`."""
        rank = self.first_stage_rank
        said = f"hybrid #{rank}" if self.origin == Origin.MENTIONED else f"{self.origin} #{rank}"
        places = ", ".join(f"{stage} #{place}" for stage, place in (self.fused_from or {}).items())
        said += f" ({places or 'neither dense nor bm25 top-n'})" if self.fused_from is not None else ""
        return f"named in the issue ({self.named}), {said}" if self.named else said


@dataclass
class Decision:
    """What a selector decided for one seed: the neighbours it was offered and those it admitted, and what its call
    cost or what went wrong in it."""

    seed: str
    offered: list[str]
    admitted: list[str] = field(default_factory=list)
    status: str = "ok"  # ok | malformed answer | timeout | rate limited | API error | no API key
    detail: str = ""
    ignored: list[str] = field(default_factory=list)  # returned ids that were not offered
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0  # set by decide_all
    cached: bool = False
    issue_cut: int = 0  # characters of the issue left out of the prompt (LLM selectors cap it at a token budget)


class _Count:
    """One count of a Summary, read as an attribute."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = name

    def __get__(self, summary: Summary, owner: type | None = None) -> int:
        return summary[self.key]


class Summary(dict[str, int]):
    """What the graph steps of an answer did, in counts (a first-stage answer's is empty). A dict of these keys, so
    that --json and the MCP answer carry it as they always have; `Summary.of` makes one, and each count reads as an
    attribute."""

    seeds = _Count()
    neighbours = _Count()
    proposals = _Count()  # neighbours outside the first-stage top-k
    offered = _Count()
    admitted = _Count()
    displaced = _Count()
    calls = _Count()
    failed_calls = _Count()
    cached_calls = _Count()
    tokens_in = _Count()  # of the calls not answered from the cache
    tokens_out = _Count()

    @classmethod
    def of(cls, *, seeds: int, neighbours: int, proposals: int, offered: int, admitted: int, displaced: int,
           calls: int, failed_calls: int, cached_calls: int, tokens_in: int, tokens_out: int) -> Summary:
        return cls(seeds=seeds, neighbours=neighbours, proposals=proposals, offered=offered, admitted=admitted,
                   displaced=displaced, calls=calls, failed_calls=failed_calls, cached_calls=cached_calls,
                   tokens_in=tokens_in, tokens_out=tokens_out)


@dataclass(kw_only=True)
class Answer:
    """What a query answers: the K functions most likely to need edits, each with why it is there, and what the
    steps that found them did (`to_table` and `to_json` print it)."""

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
    summary: Summary = field(default_factory=Summary)
    displaced: list[Result] = field(default_factory=list)
    calls: list[Decision] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
