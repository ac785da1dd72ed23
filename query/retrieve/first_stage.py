"""The first stage: one snapshot's functions ranked for an issue, the pool the graph steps expand around.

Dense retrieval and BM25 find different functions, and an issue often names its functions outright; the hybrid
first stage fuses all three. Test code is handled before anything is ranked (`tests_policy`).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Callable

from spider.core.errors import InvalidInput
from spider.core.settings import Settings
from spider.indexer.graph.store import GraphStore
from spider.indexer.models.embedding import open_embedder
from spider.indexer.vectors.open_store import open_vector_store
from spider.indexer.vectors.store import WINDOWS_PER_FUNCTION, VectorStore
from spider.query.results import Origin
from spider.query.retrieve.bm25 import Bm25Index, snapshot_index
from spider.query.retrieve.dense import dense_ranking
from spider.query.retrieve.fusion import reciprocal_rank_fusion
from spider.query.retrieve.mentions import FunctionNames, Named, issue_mentions, match_mentions, mention_ranking
from spider.query.retrieve.tests_policy import DEFAULT_TESTS, TestPolicy, demote_tests, which_are_tests

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


@dataclass(frozen=True)
class _Query:
    """What every first stage reads: the snapshot, the issue, how many to rank and what becomes of test code."""

    store: GraphStore
    repo: str
    snapshot: str
    issue: str
    n: int
    tests: TestPolicy
    embed_model: str | None
    vectors: VectorStore | None
    mentions: bool
    settings: Settings | None  # the door's: the embedding models and the vector store it names


def first_stage(store: GraphStore, repo: str, snapshot: str, issue: str, origin: Origin, n: int,
                tests: TestPolicy = DEFAULT_TESTS, embed_model: str | None = None,
                vectors: VectorStore | None = None, mentions: bool = True, settings: Settings | None = None) -> Ranking:
    """The top-n of a dense, BM25 or hybrid ranking, test code handled by `tests`. Hybrid fuses the dense and
    BM25 top-n with the functions the issue names (reciprocal-rank fusion). Dense searches `vectors`, or the
    vector store `settings` name.
    `mentions=False` fuses dense and BM25 alone (what the mentions add, measured). The embedding model and the
    vector store are those `settings` name."""
    if origin not in FIRST_STAGES:
        raise InvalidInput(f"unknown first stage {origin!r} (choose from {', '.join(FIRST_STAGES)})")
    return _RANKERS[origin](_Query(store, repo, snapshot, issue, n, tests, embed_model, vectors, mentions, settings))


def _dense_first_stage(query: _Query) -> Ranking:
    """The dense top-n; test code left out of the search (exclude) or demoted."""
    seconds: dict[str, float] = {}
    notes: list[str] = []
    scored, model = _dense_scored(query, seconds, notes, required=True)
    return _demoted(Ranking(scored, Origin.DENSE, model, seconds, notes=notes), query.tests,
                    which_are_tests(i for i, _ in scored))


def _bm25_first_stage(query: _Query) -> Ranking:
    """The BM25 top-n; test code left out of the search (exclude) or demoted."""
    seconds: dict[str, float] = {}
    scored, lexical = _bm25_scored(query, seconds)
    return _demoted(Ranking(scored, Origin.BM25, seconds=seconds), query.tests, lexical.test_ids)


def _hybrid_first_stage(query: _Query) -> Ranking:
    """The dense and BM25 top-n (dense only where the snapshot has embeddings) fused with the functions the issue
    names, each ranked function with its evidence; test code left out of both searches (exclude) or demoted."""
    seconds: dict[str, float] = {}
    notes: list[str] = []
    dense, model = _dense_scored(query, seconds, notes, required=False)
    sparse, lexical = _bm25_scored(query, seconds)
    clock = time.perf_counter()
    dense_place = {node_id: place for place, (node_id, _) in enumerate(dense, start=1)}
    bm25_place = {node_id: place for place, (node_id, _) in enumerate(sparse, start=1)}
    names = _function_names(lexical, query.tests == TestPolicy.EXCLUDE)
    named = (match_mentions(issue_mentions(query.issue), names, query.store, query.repo, query.snapshot, lexical)
             if query.mentions else {})
    fused = fuse_hybrid(list(dense_place), list(bm25_place), named)[1][:query.n]
    seconds["fuse"] = round(time.perf_counter() - clock, 4)
    evidence = {node_id: Evidence(dense_place.get(node_id), bm25_place.get(node_id), named.get(node_id))
                for node_id, _ in fused}
    return _demoted(Ranking(fused, Origin.HYBRID, model, seconds, evidence, notes), query.tests, lexical.test_ids)


_RANKERS: dict[Origin, Callable[[_Query], Ranking]] = {
    Origin.DENSE: _dense_first_stage, Origin.BM25: _bm25_first_stage, Origin.HYBRID: _hybrid_first_stage}


def fuse_hybrid(dense: list[str], bm25: list[str],
                named: dict[str, Named]) -> tuple[list[str], list[tuple[str, float]]]:
    """(the mention ranking, the fused ranking): the named functions, strongest reason first and then in the order
    of the dense and BM25 rankings, fused with those two by reciprocal rank, each named one weighted as its reason
    says (`Named.fusion_weight`)."""
    order = {node_id: place for place, node_id in enumerate(dict.fromkeys([*dense, *bm25]))}
    mentioned = mention_ranking(named, order)
    weights = [{}, {}, {node_id: named[node_id].fusion_weight for node_id in mentioned}]
    return mentioned, reciprocal_rank_fusion([dense, bm25, mentioned], weights=weights)


def _dense_scored(query: _Query, seconds: dict[str, float], notes: list[str],
                  required: bool) -> tuple[list[tuple[str, float]], str | None]:
    """The dense top-n (test code left out where the policy excludes it) and the model that embedded the issue.
    A snapshot indexed without embeddings is an error where dense retrieval is `required`, else a note and no
    ranking; one embedded by an older spider with fewer windows per function gets a note."""
    embedding = query.store.snapshot_embedding(query.repo, query.snapshot)  # read once per query
    repo, snapshot = query.repo, query.snapshot
    if not required and query.embed_model is None and embedding is None:
        notes.append(f"{repo} @ {snapshot[:12]} was indexed without embeddings: the hybrid first stage fused BM25 "
                     "and the functions the issue names only (re-index without --no-embed for dense retrieval)")
        return [], None
    start = time.perf_counter()
    model = query.embed_model or (embedding.model if embedding else None)
    if model is None:
        raise InvalidInput(f"{repo} @ {snapshot[:12]} was indexed without embeddings: "
                           "re-index it without --no-embed, or use --method hybrid, bm25 or spisr")
    embedder = open_embedder(model, settings=query.settings)
    loaded = time.perf_counter()
    without_tests = query.tests == TestPolicy.EXCLUDE
    if query.vectors is not None:
        scored = dense_ranking(embedder, query.vectors, query.store, repo, snapshot, query.issue, query.n, embedding,
                               without_tests)
    else:
        with open_vector_store(embedder.name, embedder.dim, query.settings) as opened:
            scored = dense_ranking(embedder, opened, query.store, repo, snapshot, query.issue, query.n, embedding,
                                   without_tests)
    seconds.update({"model load": round(loaded - start, 4), "dense": round(time.perf_counter() - loaded, 4)})
    if embedding is not None and embedding.model == embedder.name and embedding.windows < WINDOWS_PER_FUNCTION:
        notes.append(_fewer_windows(query, embedding.windows))
    return scored, embedder.name


def _fewer_windows(query: _Query, windows: int) -> str:
    """The note for a snapshot an older spider embedded with fewer windows of each function than it has."""
    return (f"{query.repo} @ {query.snapshot[:12]} was embedded by an older spider, "
            + ("the first window of each function only" if windows == 1 else
               f"{windows} windows of each function at most")
            + ": a long function was scored by its opening lines (`spider index` of that commit embeds the rest)")


def _bm25_scored(query: _Query, seconds: dict[str, float]) -> tuple[list[tuple[str, float]], Bm25Index]:
    """The BM25 top-n (test code left out where the policy excludes it), timed with loading the snapshot's index
    (built on its first query), and that index."""
    clock = time.perf_counter()
    lexical = snapshot_index(query.store, query.repo, query.snapshot)
    left_out = lexical.test_ids if query.tests == TestPolicy.EXCLUDE else frozenset()
    scored = lexical.search(query.issue, query.n, left_out)
    seconds["bm25"] = round(time.perf_counter() - clock, 4)
    return scored, lexical


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
