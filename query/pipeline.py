"""The query, end to end: first-stage ranking, then for spider/spisr the seeds, expansion, Stage 1, Stage 2 and
exchange (`graph_steps`, shared with the evaluation), and why each result is there (`explain`). Each step lives in
its own module; this one wires them.
"""

from __future__ import annotations

import time
from typing import Callable

from spider.core.errors import InvalidInput
from spider.core.schema import Rel
from spider.core.settings import Settings
from spider.indexer.graph.store import GraphStore
from spider.query.expand import DEFAULT_EDGES, edges_label
from spider.query.explain import first_stage_results, graph_results
from spider.query.graph_steps import propose, select_and_exchange
from spider.query.results import Answer, Decision, Method, Origin
from spider.query.retrieve.first_stage import Ranking
from spider.query.retrieve.first_stage import first_stage as retrieve
from spider.query.retrieve.tests_policy import DEFAULT_TESTS, TEST_POLICIES, TestPolicy
from spider.query.select.decide import AdmitAll, AdmitNone, Selector, SelectorKind
from spider.query.select.learned import LearnedSelector
from spider.query.select.llm import AnswerCache, AnthropicBackend, LLMSelector, OpenAIBackend

FIRST_STAGE = {Method.DER: Origin.DENSE, Method.BM25: Origin.BM25, Method.HYBRID: Origin.HYBRID,
               Method.SPISR: Origin.BM25}  # spider's is --first-stage's
DEFAULT_FIRST_STAGE = Origin.HYBRID
METHODS = tuple(method.value for method in Method)  # as --method spells them
GRAPH_METHODS = (Method.SPIDER, Method.SPISR)
SELECTORS = tuple(kind.value for kind in SelectorKind if kind != SelectorKind.ORACLE)  # as --selector spells them


def open_selector(name: str | None, model: str | None = None, *,
                  settings: Settings) -> tuple[Selector, list[str]]:
    """The selector a user asked for (None: an LLM if `settings` configure one, else `learned`), and notes to print.
    The LLM's endpoint, key, timeout and answer cache and the learned selector's model file are the settings'."""
    llm = settings.llm
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
        return LLMSelector(AnthropicBackend(model, llm), AnswerCache.of(settings), llm), notes
    if name == SelectorKind.OPENAI:
        return LLMSelector(OpenAIBackend(model, llm), AnswerCache.of(settings), llm), notes
    simple: dict[str, Callable[[], Selector]] = {
        SelectorKind.LEARNED: lambda: LearnedSelector.of(settings), SelectorKind.ALL: AdmitAll,
        SelectorKind.NONE: AdmitNone}
    if name not in simple:
        raise InvalidInput(f"unknown selector {name!r} (choose from {', '.join(SELECTORS)})")
    return simple[name](), notes


def graph_answer(
    store: GraphStore, repo: str, snapshot: str, issue: str, ranking: Ranking, method: Method, selector: Selector,
    k: int = 20, n: int = 500, c: int = 5, edges: dict[Rel, int] | None = None,
) -> Answer:
    """Algorithm 1 over a first-stage ranking: seeds are its top-c, Stage 1 keeps neighbours in its top-n."""
    edges = edges or DEFAULT_EDGES
    top_k = [node_id for node_id, _ in ranking.scored[:k]]
    proposal = propose(store, repo, snapshot, issue, ranking, c, n, edges, selector.needs_lexical, show=top_k)
    done = select_and_exchange(proposal, selector, top_k)
    results, displaced = graph_results(ranking, proposal, done, top_k)
    return Answer(repo=repo, snapshot=snapshot, method=method, k=k, results=results,
                  seconds={**proposal.seconds, **done.seconds}, model=ranking.model, first_stage=ranking.origin,
                  selector=selector.name, edges=edges_label(edges), summary=done.summary, displaced=displaced,
                  calls=done.decisions, notes=_selection_notes(issue, done.decisions, selector, len(results), k))


def _fewer_than_k(found: int, k: int, dense: bool, tests: TestPolicy) -> str:
    """Why a ranking answered fewer than k functions: a dense ranking ranks them all; BM25 (and hybrid without
    embeddings) only those that share a word with the issue, or that it names."""
    why = ("the snapshot has no more functions" + (" outside test code" if tests == TestPolicy.EXCLUDE else "")
           if dense else "BM25 ranks only the functions that share a word with the issue (hybrid adds those it "
                         "names)")
    return f"{found} result{'s' * (found != 1)}, fewer than k={k}: {why}"


def _selection_notes(issue: str, decisions: list[Decision], selector: Selector, answered: int, k: int) -> list[str]:
    """What the answer says about Stage 2: an issue cut to fit the prompt, an answer longer than k."""
    notes = []
    cut = max((d.issue_cut for d in decisions), default=0)
    if cut:
        whole = len(issue.strip())
        notes.append(f"the selector read the first {whole - cut:,} of the issue's {whole:,} characters "
                     "(SPIDER_LLM_ISSUE_TOKENS caps what each call sends)")
    if not selector.uses_budget:
        notes.append(f"selector `all` admits every proposal: {answered} results, more than k={k}")
    return notes


def answer_query(
    store: GraphStore, repo: str, snapshot: str, issue: str, method: str, k: int = 20, n: int = 500, c: int = 5,
    edges: dict[Rel, int] | None = None, selector: Selector | None = None, embed_model: str | None = None,
    first_stage: str | None = None, tests: str = DEFAULT_TESTS, settings: Settings | None = None,
) -> Answer:
    """Run one method; der, bm25 and hybrid return the first-stage top-k, spider and spisr run the graph steps.
    `first_stage` (dense, bm25, hybrid; default hybrid) is spider's; `tests` says what becomes of test code; `settings` name the
    embedding models and the vector store."""
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
    ranking = retrieve(store, repo, snapshot, issue, origin, depth, tests, embed_model, settings=settings)
    if not graph:
        clock = time.perf_counter()
        results = first_stage_results(store, repo, snapshot, ranking, k)
        ranking.seconds["fetch"] = round(time.perf_counter() - clock, 4)
        if len(results) < k:
            notes.append(_fewer_than_k(len(results), k, dense=ranking.model is not None, tests=tests))
        return Answer(repo=repo, snapshot=snapshot, method=method, k=k, results=results, seconds=ranking.seconds,
                      model=ranking.model, first_stage=origin, tests=tests, notes=ranking.notes + notes)
    answer = graph_answer(store, repo, snapshot, issue, ranking, method, selector or AdmitNone(), k, n, c, edges)
    answer.notes += ranking.notes + notes
    answer.tests = tests
    return answer
