"""The first stage: one snapshot's functions ranked for an issue, the pool the graph steps expand around.

Dense retrieval and BM25 find different functions, and an issue often names its functions outright; the hybrid
first stage fuses all three. Test code is handled before anything is ranked (`test_policy`).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

from spider.core.errors import InvalidInput
from spider.core.records import EmbedStats
from spider.indexer.graph.store import GraphStore
from spider.indexer.models.embedding import open_embedder
from spider.indexer.vectors.open_store import open_vector_store
from spider.indexer.vectors.store import WINDOWS_PER_FUNCTION, VectorStore
from spider.query.results import Origin, Result
from spider.query.retrieve.bm25 import Bm25Index, snapshot_index
from spider.query.retrieve.dense import dense_ranking
from spider.query.retrieve.fusion import reciprocal_rank_fusion
from spider.query.retrieve.mentions import FunctionNames, Named, issue_mentions, match_mentions, mention_ranking
from spider.query.retrieve.test_policy import DEFAULT_TESTS, TestPolicy, demote_tests, which_are_tests

FIRST_STAGES = (Origin.DENSE, Origin.BM25, Origin.HYBRID)  # what --first-stage chooses from


@dataclass(frozen=True)
class Evidence:
    """Why a hybrid ranking holds a function: its places in the dense and BM25 top-n (None: not there) and how
    the issue names it (None: it does not)."""

    dense: int | None = None
    bm25: int | None = None
    named: Named | None = None


@dataclass
class Ranking:
    """A first-stage ranking of one snapshot: (id, score) best first, and what produced it."""

    scored: list[tuple[str, float]]
    origin: Origin  # dense, bm25 or hybrid
    model: str | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    evidence: dict[str, Evidence] = field(default_factory=dict)  # hybrid: every ranked id's
    notes: list[str] = field(default_factory=list)  # what the answer should tell the user about it


def first_stage(store: GraphStore, repo: str, snapshot: str, issue: str, origin: Origin, n: int,
                tests: TestPolicy = DEFAULT_TESTS, embed_model: str | None = None,
                vectors: VectorStore | None = None, mentions: bool = True) -> Ranking:
    """The top-n of a dense, BM25 or hybrid ranking, test code handled by `tests`. Hybrid fuses the dense and
    BM25 top-n with the functions the issue names (reciprocal-rank fusion). Dense opens the vector store for the
    query unless a process that keeps it open (it is single-process on Edge) passes it as `vectors`.
    `mentions=False` fuses dense and BM25 alone (what the mentions add, measured)."""
    if origin not in FIRST_STAGES:
        raise InvalidInput(f"unknown first stage {origin!r} (choose from {', '.join(FIRST_STAGES)})")
    seconds: dict[str, float] = {}
    clock = time.perf_counter()
    lexical = snapshot_index(store, repo, snapshot) if origin != Origin.DENSE else None
    tests_here = lexical.test_ids if lexical is not None and tests != TestPolicy.INCLUDE else frozenset()
    loading = time.perf_counter() - clock  # the BM25 index (built on a snapshot's first query) and its test code
    dense: list[tuple[str, float]] = []
    model, notes = None, []
    embedding = store.snapshot_embedding(repo, snapshot) if origin != Origin.BM25 else None  # read once per query
    if origin == Origin.HYBRID and embed_model is None and embedding is None:
        notes.append(f"{repo} @ {snapshot[:12]} was indexed without embeddings: the hybrid first stage fused BM25 "
                     "and the functions the issue names only (re-index without --no-embed for dense retrieval)")
    elif origin != Origin.BM25:
        dense, model = _dense(store, repo, snapshot, issue, n, tests == TestPolicy.EXCLUDE, embed_model, embedding,
                              vectors, seconds)
        if embedding is not None and embedding.model == model and embedding.windows < WINDOWS_PER_FUNCTION:
            notes.append(f"{repo} @ {snapshot[:12]} was embedded by an older spider, "
                         + ("the first window of each function only" if embedding.windows == 1 else
                            f"{embedding.windows} windows of each function at most")
                         + ": a long function was scored by its opening lines (`spider index` of that commit "
                         "embeds the rest)")
    clock = time.perf_counter() - loading
    left_out = tests_here if tests == TestPolicy.EXCLUDE else frozenset()
    sparse = lexical.search(issue, n, left_out) if lexical is not None else []
    if origin == Origin.BM25:
        seconds["bm25"] = round(time.perf_counter() - clock, 4)
        return _demoted(Ranking(sparse, origin, seconds=seconds), tests, tests_here)
    if origin == Origin.DENSE:
        return _demoted(Ranking(dense, origin, model, seconds, notes=notes), tests,
                        which_are_tests(i for i, _ in dense))
    assert lexical is not None
    seconds["bm25"] = round(time.perf_counter() - clock, 4)
    clock = time.perf_counter()
    dense_place = {node_id: place for place, (node_id, _) in enumerate(dense, start=1)}
    bm25_place = {node_id: place for place, (node_id, _) in enumerate(sparse, start=1)}
    names = _function_names(lexical, tests == TestPolicy.EXCLUDE)
    named = match_mentions(issue_mentions(issue), names, store, repo, snapshot, lexical) if mentions else {}
    fused = fuse_hybrid(list(dense_place), list(bm25_place), named)[1][:n]
    seconds["fuse"] = round(time.perf_counter() - clock, 4)
    evidence = {node_id: Evidence(dense_place.get(node_id), bm25_place.get(node_id), named.get(node_id))
                for node_id, _ in fused}
    return _demoted(Ranking(fused, origin, model, seconds, evidence, notes), tests, tests_here)


def fuse_hybrid(dense: list[str], bm25: list[str],
                named: dict[str, Named]) -> tuple[list[str], list[tuple[str, float]]]:
    """(the mention ranking, the fused ranking): the named functions, strongest reason first and then in the order
    of the dense and BM25 rankings, fused with those two by reciprocal rank, each named one weighted as its reason
    says (`Named.fusion_weight`)."""
    order = {node_id: place for place, node_id in enumerate(dict.fromkeys([*dense, *bm25]))}
    mentioned = mention_ranking(named, order)
    weights = [{}, {}, {node_id: named[node_id].fusion_weight for node_id in mentioned}]
    return mentioned, reciprocal_rank_fusion([dense, bm25, mentioned], weights=weights)


def _dense(store: GraphStore, repo: str, snapshot: str, issue: str, n: int, without_tests: bool,
           embed_model: str | None, embedding: EmbedStats | None, vectors: VectorStore | None,
           seconds: dict[str, float]) -> tuple[list, str]:
    """The dense top-n (test code left out where `without_tests`), and the model that embedded the issue."""
    start = time.perf_counter()
    model = embed_model or (embedding.model if embedding else None)
    if model is None:
        raise InvalidInput(f"{repo} @ {snapshot[:12]} was indexed without embeddings: "
                           "re-index it without --no-embed, or use --method hybrid, bm25 or spisr")
    embedder = open_embedder(model)
    loaded = time.perf_counter()
    if vectors is not None:
        scored = dense_ranking(embedder, vectors, store, repo, snapshot, issue, n, embedding, without_tests)
    else:
        with open_vector_store(embedder.name, embedder.dim) as opened:
            scored = dense_ranking(embedder, opened, store, repo, snapshot, issue, n, embedding, without_tests)
    seconds.update({"model load": round(loaded - start, 4), "dense": round(time.perf_counter() - loaded, 4)})
    return scored, embedder.name


@functools.lru_cache(maxsize=8)
def _function_names(lexical: Bm25Index, without_tests: bool) -> FunctionNames:
    """The names an issue's mentions are matched against: a snapshot's functions (its test code left out where
    `without_tests`), indexed once for all the snapshot's queries in this process."""
    return FunctionNames.of(i for i in lexical.node_ids if not (without_tests and i in lexical.test_ids))


def _demoted(ranking: Ranking, tests: TestPolicy, tests_here: frozenset[str]) -> Ranking:
    """The ranking with its test code demoted where `tests` says so."""
    if tests == TestPolicy.DEMOTE:
        ranking.scored = demote_tests(ranking.scored, tests_here)
    return ranking


def explain(result: Result, ranking: Ranking) -> Result:
    """Fill in why a result of a hybrid ranking is there: the places it was fused from, how the issue names it."""
    evidence = ranking.evidence.get(result.id)
    if evidence is not None:
        result.fused_from = {stage: place for stage, place in (("dense", evidence.dense), ("bm25", evidence.bm25))
                             if place is not None}
        if evidence.named is not None:
            result.origin, result.named = Origin.MENTIONED, evidence.named.phrase
    return result
