"""The query, end to end: first-stage ranking, then for spider/spisr the seeds,
expansion, Stage 1, Stage 2, exchange and explanation. Each step lives in its own module; this one wires them
and times them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from spider.core.errors import InvalidInput
from spider.core.schema import Rel
from spider.core.settings import Settings
from spider.indexer.graph.store import GraphStore
from spider.query.exchange import exchange
from spider.query.expand import DEFAULT_EDGES, Neighbour, edges_label, expand_neighbourhood
from spider.query.results import Answer, Method, Origin, Result, Verdict, function_info, located, ranked
from spider.query.retrieve.bm25 import snapshot_index
from spider.query.retrieve.first_stage import Ranking, explain
from spider.query.retrieve.first_stage import first_stage as retrieve
from spider.query.retrieve.test_policy import DEFAULT_TESTS, TEST_POLICIES, TestPolicy
from spider.query.select.learned import LearnedSelector
from spider.query.select.llm import AnthropicBackend, LLMSelector, OpenAIBackend
from spider.query.select.stage2 import (
    AdmitAll,
    AdmitNone,
    Candidate,
    SelectionRequest,
    Selector,
    SelectorKind,
    decide_all,
)

FIRST_STAGE = {Method.DER: Origin.DENSE, Method.BM25: Origin.BM25, Method.HYBRID: Origin.HYBRID,
               Method.SPISR: Origin.BM25}  # spider's is --first-stage's
DEFAULT_FIRST_STAGE = Origin.HYBRID
METHODS = tuple(method.value for method in Method)  # as --method spells them
GRAPH_METHODS = (Method.SPIDER, Method.SPISR)
SELECTORS = tuple(kind.value for kind in SelectorKind if kind != SelectorKind.ORACLE)  # as --selector spells them


def open_selector(name: str | None, model: str | None = None) -> tuple[Selector, list[str]]:
    """The selector a user asked for (None: an LLM if one is configured, else `learned`), and notes to print."""
    llm = Settings.from_env().llm
    notes = []
    if name is None:
        if llm.anthropic_api_key:
            name = SelectorKind.ANTHROPIC
        elif llm.openai_base_url:
            name = SelectorKind.OPENAI
        else:
            name = SelectorKind.LEARNED
            notes.append("no LLM configured (ANTHROPIC_API_KEY or SPIDER_OPENAI_BASE_URL): the learned selector decided")
    if name == SelectorKind.ANTHROPIC:
        return LLMSelector(AnthropicBackend(model, llm), llm=llm), notes
    if name == SelectorKind.OPENAI:
        return LLMSelector(OpenAIBackend(model, llm), llm=llm), notes
    simple: dict[str, Callable[[], Selector]] = {
        SelectorKind.LEARNED: LearnedSelector, SelectorKind.ALL: AdmitAll, SelectorKind.NONE: AdmitNone}
    if name not in simple:
        raise InvalidInput(f"unknown selector {name!r} (choose from {', '.join(SELECTORS)})")
    return simple[name](), notes


def edge_phrase(edges: dict[Rel, int]) -> str:
    parts = [f"{rel.value.lower()} (up to {depth} hops)" for rel, depth in edges.items()]
    return " and ".join(parts) + " relationships"


@dataclass
class Proposal:
    """Steps 2-4 of one query: the seeds, their Stage-1 neighbours, and one selection request per seed. It does
    not depend on K (only the seeds do), so an evaluation reuses it for every K and every selector."""

    seeds: list[str]
    neighbours: list[Neighbour]
    requests: list[SelectionRequest]
    info: dict[str, dict]
    pool_rank: dict[str, int]
    score: dict[str, float]
    seconds: dict[str, float]


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

    def candidate(node_id: str, nb: Neighbour | None = None) -> Candidate:
        where = info.get(node_id) or {}
        evidence = ranking.evidence.get(node_id)
        found: dict[str, Any] = dict(id=node_id, code=where.get("code") or "", rank=pool_rank[node_id],
                                     score=score[node_id], degree=where.get("degree") or 0,
                                     lexical=relative.get(node_id, 0.0), lexical_rank=lexical_rank.get(node_id, 0))
        if evidence is not None:
            found.update(named=evidence.named or 0, fused_from=(evidence.dense is not None) + (evidence.bm25 is not None))
        if nb is None:
            return Candidate(**found)
        return Candidate(**found, hops=nb.hops, rel_type=nb.rel_type.value, edge_path=nb.edge_path)

    requests = []
    for index, seed in enumerate(seeds):
        mine = [candidate(nb.id, nb) for nb in neighbours if nb.seed == seed]
        if mine:
            requests.append(SelectionRequest(issue, candidate(seed), mine, index, len(seeds), edge_phrase(edges),
                                             ranking.origin, edges_label(edges)))
    return Proposal(seeds, neighbours, requests, info, pool_rank, score, seconds)


def graph_answer(
    store: GraphStore, repo: str, snapshot: str, issue: str, ranking: Ranking, method: Method, selector: Selector,
    k: int = 20, n: int = 500, c: int = 5, edges: dict[Rel, int] | None = None,
) -> Answer:
    """Algorithm 1 over a first-stage ranking: seeds are its top-c, Stage 1 keeps neighbours in its top-n."""
    edges = edges or DEFAULT_EDGES
    top_k = [node_id for node_id, _ in ranking.scored[:k]]
    proposal = propose(store, repo, snapshot, issue, ranking, c, n, edges, selector.needs_lexical, show=top_k)
    seconds, seeds, neighbours = proposal.seconds, proposal.seeds, proposal.neighbours
    pool_rank, score, info = proposal.pool_rank, proposal.score, proposal.info

    clock = time.perf_counter()
    decisions = decide_all(selector, proposal.requests)
    seconds["select"] = round(time.perf_counter() - clock, 4)

    clock = time.perf_counter()
    admitted = {d.seed: d.admitted for d in decisions}
    result = exchange(top_k, seeds, admitted, pool_rank, keep_budget=selector.uses_budget)
    seconds["exchange"] = round(time.perf_counter() - clock, 4)

    nearest = {nb.id: nb for nb in neighbours}
    offered = {i for d in decisions for i in d.offered}
    admitted_ids = {i for d in decisions for i in d.admitted}
    results = []
    for rank, node_id in enumerate(result.ranking, start=1):
        item = explain(Result(rank, node_id, round(score[node_id], 6), dense_rank=pool_rank[node_id],
                              origin=ranking.origin), ranking)
        if node_id in seeds:
            item.verdict = Verdict.SEED
        elif node_id in offered:
            item.verdict = Verdict.ADMITTED if node_id in admitted_ids else Verdict.REJECTED
        if node_id not in top_k:
            nb = nearest[node_id]
            item.origin, item.seed, item.hops, item.edge_path = Origin.GRAPH, nb.seed, nb.hops, list(nb.edge_path)
            item.fused_from = item.named = None  # why it is here is the graph; its first-stage place stays in `why`
        results.append(located(item, info))
    displaced = [located(explain(Result(0, i, round(score[i], 6), dense_rank=pool_rank[i], origin=ranking.origin),
                                 ranking), info) for i in result.displaced]
    fresh = [d for d in decisions if not d.cached]
    in_top = set(top_k)
    summary = {
        "seeds": len(seeds), "neighbours": len(neighbours),
        "proposals": sum(1 for nb in neighbours if nb.id not in in_top),
        "offered": sum(len(d.offered) for d in decisions), "admitted": len(result.admitted),
        "displaced": len(result.displaced), "calls": len(decisions),
        "failed_calls": sum(1 for d in decisions if d.status != "ok"),
        "cached_calls": len(decisions) - len(fresh),
        "tokens_in": sum(d.tokens_in for d in fresh), "tokens_out": sum(d.tokens_out for d in fresh),
    }
    notes = []
    cut = max((d.issue_cut for d in decisions), default=0)
    if cut:
        whole = len(issue.strip())
        notes.append(f"the selector read the first {whole - cut:,} of the issue's {whole:,} characters "
                     "(SPIDER_LLM_ISSUE_TOKENS caps what each call sends)")
    if not selector.uses_budget:
        notes.append(f"selector `all` admits every proposal: {len(results)} results, more than k={k}")
    return Answer(repo=repo, snapshot=snapshot, method=method, k=k, results=results, seconds=seconds,
                  model=ranking.model, first_stage=ranking.origin, selector=selector.name, edges=edges_label(edges),
                  summary=summary, displaced=displaced, calls=decisions, notes=notes)


def answer_query(
    store: GraphStore, repo: str, snapshot: str, issue: str, method: str, k: int = 20, n: int = 500, c: int = 5,
    edges: dict[Rel, int] | None = None, selector: Selector | None = None, embed_model: str | None = None,
    first_stage: str | None = None, tests: str = DEFAULT_TESTS,
) -> Answer:
    """Run one method; der, bm25 and hybrid return the first-stage top-k, spider and spisr run the graph steps.
    `first_stage` (dense, bm25, hybrid; default hybrid) is spider's; `tests` says what becomes of test code."""
    if method not in METHODS:
        raise InvalidInput(f"unknown method {method!r} (choose from {', '.join(METHODS)})")
    if tests not in TEST_POLICIES:
        raise InvalidInput(f"unknown test-code policy {tests!r} (choose from {', '.join(TEST_POLICIES)})")
    method, tests = Method(method), TestPolicy(tests)
    if first_stage is not None and method != Method.SPIDER:
        raise InvalidInput(f"--first-stage is spider's: {method} ranks by {FIRST_STAGE[method]} (use --method spider)")
    origin = FIRST_STAGE.get(method) or Origin(first_stage or DEFAULT_FIRST_STAGE)
    graph = method in GRAPH_METHODS
    notes = []
    if graph and c > k:  # seeds stay in the answer: asking for k results asks for at most k seeds
        notes.append(f"-c capped at -k: {k} seeds explored, not {c} (seeds stay in the top-{k})")
        c = k
    if graph and not 1 <= c <= k <= n:
        raise InvalidInput(f"need 1 <= c <= k <= n (seeds within the answer, the answer within the pool): c={c}, k={k}, n={n}")
    # fusion and demotion read beyond the top-k: an item can rise into it
    depth = n if graph or origin == Origin.HYBRID or tests == TestPolicy.DEMOTE else k
    ranking = retrieve(store, repo, snapshot, issue, origin, depth, tests, embed_model)
    if not graph:
        clock = time.perf_counter()
        results = [explain(r, ranking) for r in ranked(store, repo, snapshot, ranking.scored[:k], ranking.origin)]
        ranking.seconds["fetch"] = round(time.perf_counter() - clock, 4)
        return Answer(repo=repo, snapshot=snapshot, method=method, k=k, results=results, seconds=ranking.seconds,
                      model=ranking.model, first_stage=origin, tests=tests, notes=ranking.notes)
    answer = graph_answer(store, repo, snapshot, issue, ranking, method, selector or AdmitNone(), k, n, c, edges)
    answer.notes += ranking.notes + notes
    answer.tests = tests
    return answer
