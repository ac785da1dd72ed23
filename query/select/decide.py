"""Step 5 of the query (the paper's Stage 2): a selector decides which of each seed's neighbours to admit, one
decision per seed, the seeds' calls issued concurrently.

A selector sees the issue, the seed and the seed's candidates (Stage-1 neighbours) and admits some of them.
Whatever goes wrong inside one call (timeout, rate limit, a non-JSON answer) costs that seed its admissions, never
the query: the Decision says what happened. Ids a selector returns that were not offered are dropped.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from spider.query.results import Decision


class SelectorKind(StrEnum):
    """The selectors one can choose (`--selector`); `oracle` is for evaluation only."""

    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    LEARNED = "learned"
    ALL = "all"
    NONE = "none"
    ORACLE = "oracle"


@dataclass(frozen=True)
class Profile:
    """One function as a selector reads it: a seed, or a neighbour offered for admission; its code, its place in
    the first-stage ranking, how the graph reached it, and the evidence the learned selector's features read."""

    id: str
    code: str
    rank: int  # 1-based place in the ranking the query started from (hybrid, dense or BM25)
    score: float
    hops: int = 0  # 0 for the seed itself
    rel_type: str = ""
    edge_path: tuple[str, ...] = ()
    degree: int = 0  # relationships of any type
    lexical: float = 0.0  # BM25 against the issue, over the best BM25 score in the snapshot; 0 unless asked for
    lexical_rank: int = 0  # 1-based place by `lexical` among every proposal of the query (all seeds); 0 if not asked
    named: int = 0  # hybrid: how the issue names it (`mentions.Named`: 1 a stack-trace frame ... 5 its file); 0: not
    fused_from: int = 0  # hybrid: how many of the dense and BM25 top-n hold it (0-2)


@dataclass(frozen=True)
class SelectionRequest:
    """What a selector is asked about one seed: the issue, the seed, and its Stage-1 neighbours."""

    issue: str
    seed: Profile
    candidates: list[Profile]
    seed_index: int  # 0-based, among n_seeds
    n_seeds: int
    edge_phrase: str  # e.g. "contains relationships (up to 4 hops)"
    first_stage: str = "dense"  # the ranking the ranks and scores come from: hybrid, dense or bm25
    edges: str = ""  # the expansion as --edges spells it ("contains:4"): the learned selector's threshold depends on it


class Selector(Protocol):
    """Decides, for one seed at a time, which of its neighbours to admit (`--selector`: the LLM selectors, the
    learned one, `all`, `none`; `oracle` in evaluation)."""

    name: str  # what the output calls it, e.g. "anthropic (claude-sonnet-4-5)"
    uses_budget: bool  # False only for `all`: admit everything, the answer grows past K
    needs_lexical: bool  # whether candidates must carry their BM25 score (costs loading the snapshot's index)

    def decide(self, request: SelectionRequest) -> Decision: ...


class AdmitAll:
    """Stage 2 disabled (the paper's ceiling): every proposal is admitted and the answer is longer than K."""

    name: str = SelectorKind.ALL
    uses_budget = False
    needs_lexical = False

    def decide(self, request: SelectionRequest) -> Decision:
        offered = [c.id for c in request.candidates]
        return Decision(request.seed.id, offered, admitted=list(offered))


class AdmitNone:
    """Stage 2 admits nothing: the answer is the first-stage ranking."""

    name: str = SelectorKind.NONE
    uses_budget = True
    needs_lexical = False

    def decide(self, request: SelectionRequest) -> Decision:
        return Decision(request.seed.id, [c.id for c in request.candidates])


class AdmitOracle:
    """Admits exactly the offered candidates that are targets: the upper bound of any selector (evaluation only)."""

    name: str = SelectorKind.ORACLE
    uses_budget = True
    needs_lexical = False

    def __init__(self, targets: set[str]) -> None:
        self.targets = targets

    def decide(self, request: SelectionRequest) -> Decision:
        offered = [c.id for c in request.candidates]
        return Decision(request.seed.id, offered, admitted=[i for i in offered if i in self.targets])


def decide_all(selector: Selector, requests: list[SelectionRequest], concurrency: int | None = None) -> list[Decision]:
    """One decision per request, in request order; the calls run at the same time (one thread each), and each
    decision records its call's wall time."""
    if not requests:
        return []

    def timed(request: SelectionRequest) -> Decision:
        start = time.perf_counter()
        decision = selector.decide(request)
        decision.seconds = round(time.perf_counter() - start, 4)
        return decision

    with ThreadPoolExecutor(concurrency or len(requests)) as pool:
        return list(pool.map(timed, requests))
