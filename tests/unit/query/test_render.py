"""An answer's table and JSON (`render.py`) and the words of why each result is there (`explain.py`)."""

from __future__ import annotations

import json

from spider.query import render
from spider.query.results import Answer, Decision, Method, Origin, Result, Summary, Verdict
from spider.query.retrieve.first_stage import _RANKERS, FIRST_STAGES

SHA = "0123456789abcdef0123456789abcdef01234567"


def mentioned() -> Result:
    return Result(1, "shop/pay.py:charge", 0.05, "shop/pay.py", 6, 7, first_stage_rank=1, origin=Origin.MENTIONED,
                  fused_from={"bm25": 40}, named="a stack-trace frame", verdict=Verdict.SEED)


def reached() -> Result:
    return Result(2, "shop/pay.py:_send", 0.01, "shop/pay.py", 10, 12, first_stage_rank=31, origin=Origin.GRAPH,
                  seed="shop/pay.py:charge", hops=2, edge_path=["<-CONTAINS-", "-CONTAINS->"], verdict=Verdict.ADMITTED)


def test_why_says_the_first_stage_place_the_evidence_and_the_graph_path():
    assert mentioned().why() == "named in the issue (a stack-trace frame), hybrid #1 (bm25 #40) (seed)"
    assert reached().why() == ("graph, 2 hop(s) from shop/pay.py:charge [<-CONTAINS- -CONTAINS->], admitted; was #31")
    unfused = Result(3, "a.py:f", 0.1, first_stage_rank=7, origin=Origin.HYBRID, fused_from={})
    assert unfused.first_stage_why() == "hybrid #7 (neither dense nor bm25 top-n)"
    assert Result(4, "a.py:g", 0.1, first_stage_rank=2, origin=Origin.BM25).why() == "bm25 #2"


def test_the_json_keeps_its_keys_and_their_order():
    answer = Answer(repo="r", snapshot=SHA, method=Method.HYBRID, k=1, results=[mentioned()], first_stage=Origin.HYBRID)

    row = json.loads(render.to_json(answer))["results"][0]

    assert list(row) == ["rank", "id", "score", "path", "start_line", "end_line", "dense_rank", "origin", "fused_from",
                         "named", "seed", "hops", "edge_path", "verdict", "lines"]
    assert row["dense_rank"] == 1 and row["lines"] == "6-7"
    assert json.loads(render.to_json(answer))["summary"] == {}  # a first-stage answer counts nothing


def test_a_graph_answer_prints_its_summary_and_failed_calls_below_the_table():
    summary = Summary.of(seeds=1, neighbours=3, proposals=2, offered=3, admitted=1, displaced=1, calls=1, failed_calls=1,
                      cached_calls=0, tokens_in=10, tokens_out=2)
    answer = Answer(repo="r", snapshot=SHA, method=Method.SPIDER, k=2, results=[mentioned(), reached()],
                    seconds={"expand": 0.5}, first_stage=Origin.HYBRID, selector="learned", edges="contains:4",
                    summary=summary, displaced=[Result(0, "a.py:h", 0.1, first_stage_rank=2, origin=Origin.HYBRID)],
                    calls=[Decision("shop/pay.py:charge", ["x"], status="timeout", detail="30 s")])

    lines = render.to_table(answer).splitlines()

    assert lines[-3:] == [
        "displaced: a.py:h, hybrid #2",
        "seed shop/pay.py:charge: timeout (30 s); admitted nothing",
        "spider top-2 of r @ 0123456789ab, first stage hybrid, selector learned, edges contains:4: 2 proposal(s) "
        "from 1 seed(s), 1 admitted, 1 displaced; tokens 10 in / 2 out: expand 0.500s"]
    assert list(json.loads(render.to_json(answer))["summary"]) == list(summary)


def test_each_first_stage_is_one_function():
    assert set(_RANKERS) == set(FIRST_STAGES)
