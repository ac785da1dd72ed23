"""The query half of spider's Python API: an issue's text -> the functions most likely to need edits."""

from __future__ import annotations

from spider.core.schema import Rel
from spider.indexer.api import Stores
from spider.query.expand import DEFAULT_EDGES
from spider.query.pipeline import GRAPH_METHODS, answer_query, open_selector
from spider.query.results import Answer, Method
from spider.query.retrieve.tests_policy import DEFAULT_TESTS
from spider.query.select.decide import Selector


def localize(stores: Stores, issue: str, *, repo: str | None = None, rev: str | None = None,
             method: Method | str = Method.SPIDER, k: int = 20, n: int = 500, c: int = 5,
             edges: dict[Rel, int] | None = None, selector: Selector | str | None = None, model: str | None = None,
             embed_model: str | None = None, first_stage: str | None = None, tests: str = DEFAULT_TESTS) -> Answer:
    """The `k` functions of a snapshot of `repo` (default: the only repository indexed) most likely to need edits
    for `issue`, each with why it is there; what `spider-query` prints.

    `rev` is a commit sha (prefix) or the revision it was indexed as (default: the newest complete snapshot).
    `method`: der (dense), bm25, hybrid (both, fused with the functions the issue names), spider (graph
    expansion and selection over `first_stage`: dense, bm25 or hybrid, the default) or spisr (the same over BM25).
    For spider/spisr, `c` seeds are expanded along `edges` (default contains:4,invokes:2), neighbours outside the
    first-stage top-`n` are dropped, and `selector` decides which to admit: a Selector, or a name (anthropic,
    openai, learned, all, none; default: an LLM if the stores' settings configure one, else learned) with the
    LLM's `model`; a selector named is opened from the stores' settings (its endpoint, key, answer cache, the
    learned model file). `tests`: exclude (default), demote or include test code. `embed_model` overrides the
    snapshot's own embedding model."""
    graph = method in GRAPH_METHODS
    notes: list[str] = []
    chosen: Selector | None = None
    if graph:
        if selector is None or isinstance(selector, str):
            chosen, notes = open_selector(selector, model, settings=stores.settings)
        else:
            chosen = selector
    repo = repo or stores.graph.only_repository()
    snapshot = stores.graph.resolve_snapshot(repo, rev)
    answer = answer_query(stores.graph, repo, snapshot, issue, method, k, n, c,
                          (edges or DEFAULT_EDGES) if graph else None, chosen, embed_model, first_stage, tests,
                          stores.settings)
    answer.notes[:0] = notes
    return answer
