"""Steps 2-6 of Algorithm 1 over a first-stage ranking, as both `spider-query` and `spider eval` run them:
`propose` (the seeds, their expansion, Stage 1 and one selection request per seed), then `select_and_exchange`
(Stage 2 and the fixed-budget exchange). One code path, so what the evaluation measures is what ships.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

from spider.core.schema import Rel
from spider.indexer.graph.store import GraphStore
from spider.query.exchange import Exchange, exchange
from spider.query.expand import Neighbour, edges_label, expand_neighbourhood
from spider.query.fetch import FunctionInfo, function_info
from spider.query.results import Decision, Summary
from spider.query.retrieve.bm25 import snapshot_index
from spider.query.retrieve.first_stage import Ranking
from spider.query.select.decide import Profile, SelectionRequest, Selector, decide_all


@dataclass
class Proposal:
    """Steps 2-4 of one query: the seeds, their Stage-1 neighbours, and one selection request per seed. It does
    not depend on K (only the seeds do), so an evaluation reuses it for every K and every selector."""

    seeds: list[str]
    neighbours: list[Neighbour]
    requests: list[SelectionRequest]
    info: dict[str, FunctionInfo]
    pool_rank: dict[str, int]
    score: dict[str, float]
    seconds: dict[str, float]


@dataclass
class Exchanged:
    """Steps 5-6 at one K: the selector's decisions, the exchange they led to, and what that did in counts."""

    decisions: list[Decision]
    outcome: Exchange
    summary: Summary
    seconds: dict[str, float]  # select (where the selector decided here), exchange


def edge_phrase(edges: dict[Rel, int]) -> str:
    parts = [f"{rel.value.lower()} (up to {depth} hops)" for rel, depth in edges.items()]
    return " and ".join(parts) + " relationships"


def propose(store: GraphStore, repo: str, snapshot: str, issue: str, ranking: Ranking, c: int, n: int,
            edges: dict[Rel, int], lexical: bool = False, show: Sequence[str] = ()) -> Proposal:
    """Seeds are the ranking's top-c; Stage 1 keeps neighbours in its top-n. `lexical` scores every candidate
    with BM25 (the learned selector reads it); `show` are further ids whose location the answer prints."""
    seconds = dict(ranking.seconds)
    pool = [node_id for node_id, _ in ranking.scored[:n]]
    score = dict(ranking.scored[:n])
    pool_rank = {node_id: rank for rank, node_id in enumerate(pool, start=1)}
    seeds = pool[:c]

    clock = time.perf_counter()
    neighbours = expand_neighbourhood(store, repo, snapshot, seeds, edges, pool=pool)
    seconds["expand"] = round(time.perf_counter() - clock, 4)

    clock = time.perf_counter()
    ids = list(dict.fromkeys([*show, *seeds, *(nb.id for nb in neighbours)]))
    info = function_info(store, repo, snapshot, ids, with_code=True)
    seconds["fetch code"] = round(time.perf_counter() - clock, 4)
    relative, lexical_rank = {}, {}
    if lexical:
        clock = time.perf_counter()
        relative = snapshot_index(store, repo, snapshot).relative_scores(issue, ids)
        ordered = sorted(dict.fromkeys(nb.id for nb in neighbours), key=lambda i: (-relative[i], pool_rank[i]))
        lexical_rank = {node_id: place for place, node_id in enumerate(ordered, start=1)}
        seconds["lexical"] = round(time.perf_counter() - clock, 4)

    def profile(node_id: str, nb: Neighbour | None = None) -> Profile:
        where = info.get(node_id)
        evidence = ranking.evidence.get(node_id)
        code, degree = (where.code, where.degree) if where else (None, None)
        found: dict[str, Any] = dict(id=node_id, code=code or "", rank=pool_rank[node_id], score=score[node_id],
                                     degree=degree or 0, lexical=relative.get(node_id, 0.0),
                                     lexical_rank=lexical_rank.get(node_id, 0))
        if evidence is not None:
            found.update(named=evidence.named or 0, fused_from=(evidence.dense is not None) + (evidence.bm25 is not None))
        if nb is None:
            return Profile(**found)
        return Profile(**found, hops=nb.hops, rel_type=nb.rel_type.value, edge_path=nb.edge_path)

    requests = []
    for index, seed in enumerate(seeds):
        mine = [profile(nb.id, nb) for nb in neighbours if nb.seed == seed]
        if mine:
            requests.append(SelectionRequest(issue, profile(seed), mine, index, len(seeds), edge_phrase(edges),
                                             ranking.origin, edges_label(edges)))
    return Proposal(seeds, neighbours, requests, info, pool_rank, score, seconds)


def select_and_exchange(proposal: Proposal, selector: Selector, top_k: list[str],
                        decisions: list[Decision] | None = None) -> Exchanged:
    """Stage 2 (one decision per seed), then the exchange over `top_k`, the first-stage top-K. `decisions` this
    selector already made for this proposal are reused: they do not depend on K."""
    seconds: dict[str, float] = {}
    if decisions is None:
        clock = time.perf_counter()
        decisions = decide_all(selector, proposal.requests)
        seconds["select"] = round(time.perf_counter() - clock, 4)

    clock = time.perf_counter()
    admitted = {d.seed: d.admitted for d in decisions}
    outcome = exchange(top_k, proposal.seeds, admitted, proposal.pool_rank, keep_budget=selector.uses_budget)
    seconds["exchange"] = round(time.perf_counter() - clock, 4)
    return Exchanged(decisions, outcome, summary_of(proposal, decisions, outcome, top_k), seconds)


def summary_of(proposal: Proposal, decisions: list[Decision], outcome: Exchange, top_k: list[str]) -> Summary:
    """What the graph steps did, in counts; tokens are those of the calls not answered from the cache."""
    fresh = [d for d in decisions if not d.cached]
    in_top = set(top_k)
    return Summary.of(
        seeds=len(proposal.seeds), neighbours=len(proposal.neighbours),
        proposals=sum(1 for nb in proposal.neighbours if nb.id not in in_top),
        offered=sum(len(d.offered) for d in decisions), admitted=len(outcome.admitted),
        displaced=len(outcome.displaced), calls=len(decisions),
        failed_calls=sum(1 for d in decisions if d.status != "ok"),
        cached_calls=len(decisions) - len(fresh),
        tokens_in=sum(d.tokens_in for d in fresh), tokens_out=sum(d.tokens_out for d in fresh),
    )
