"""Why each result of an answer is there, all filled in here: its place in the first-stage ranking (hybrid: the
places it was fused from and how the issue names it), the seed, hops and relationships that reached a graph item,
the selector's verdict, and where the function is. `Result.why` says it in words.
"""

from __future__ import annotations

from spider.indexer.graph.store import GraphStore
from spider.query.fetch import FunctionInfo, function_info
from spider.query.graph_steps import Exchanged, Proposal
from spider.query.results import Origin, Result, Verdict
from spider.query.retrieve.first_stage import Ranking


def first_stage_results(store: GraphStore, repo: str, snapshot: str, ranking: Ranking, k: int) -> list[Result]:
    """The ranking's top-k, each located and with its evidence."""
    return [with_evidence(r, ranking) for r in ranked(store, repo, snapshot, ranking.scored[:k], ranking.origin)]


def ranked(
    store: GraphStore, repo: str, snapshot: str, scored: list[tuple[str, float]], origin: Origin
) -> list[Result]:
    """Number the (id, score) pairs of a first-stage ranking and fill in where each function is."""
    where = function_info(store, repo, snapshot, [node_id for node_id, _ in scored])
    return [located(Result(rank, node_id, round(score, 6), first_stage_rank=rank, origin=origin), where)
            for rank, (node_id, score) in enumerate(scored, start=1)]


def graph_results(ranking: Ranking, proposal: Proposal, done: Exchanged,
                  top_k: list[str]) -> tuple[list[Result], list[Result]]:
    """The exchanged answer and what it displaced, each explained: its first-stage place and evidence, whether it
    was a seed or the selector admitted or rejected it, and for an item new to the top-k the graph path."""
    nearest = {nb.id: nb for nb in proposal.neighbours}
    offered = {i for d in done.decisions for i in d.offered}
    admitted = {i for d in done.decisions for i in d.admitted}
    results = []
    for rank, node_id in enumerate(done.outcome.ranking, start=1):
        item = _first_stage_item(ranking, proposal, node_id, rank)
        if node_id in proposal.seeds:
            item.verdict = Verdict.SEED
        elif node_id in offered:
            item.verdict = Verdict.ADMITTED if node_id in admitted else Verdict.REJECTED
        if node_id not in top_k:
            nb = nearest[node_id]
            item.origin, item.seed, item.hops, item.edge_path = Origin.GRAPH, nb.seed, nb.hops, list(nb.edge_path)
            item.fused_from = item.named = None  # why it is here is the graph; its first-stage place stays in `why`
        results.append(located(item, proposal.info))
    displaced = [located(_first_stage_item(ranking, proposal, i, 0), proposal.info) for i in done.outcome.displaced]
    return results, displaced


def _first_stage_item(ranking: Ranking, proposal: Proposal, node_id: str, rank: int) -> Result:
    return with_evidence(Result(rank, node_id, round(proposal.score[node_id], 6),
                                first_stage_rank=proposal.pool_rank[node_id], origin=ranking.origin), ranking)


def with_evidence(result: Result, ranking: Ranking) -> Result:
    """Fill in why a result of a hybrid ranking is there: the places it was fused from, how the issue names it."""
    evidence = ranking.evidence.get(result.id)
    if evidence is not None:
        result.fused_from = {stage: place for stage, place in (("dense", evidence.dense), ("bm25", evidence.bm25))
                             if place is not None}
        if evidence.named is not None:
            result.origin, result.named = Origin.MENTIONED, evidence.named.phrase
    return result


def located(result: Result, where: dict[str, FunctionInfo]) -> Result:
    """Fill in the result's path and lines (none where the snapshot has no such function)."""
    info = where.get(result.id)
    found = (info.path, info.start_line, info.end_line) if info else ("", None, None)
    result.path, result.start_line, result.end_line = found
    return result
