"""Code-aware tokens, and BM25 scores compared with Lucene's formula computed by hand."""

from __future__ import annotations

import math

import pytest
from spider.query.retrieve.bm25 import Bm25Index
from spider.query.retrieve.tokenize import code_tokens


def test_identifiers_split_at_case_and_underscores_and_kept_whole():
    assert code_tokens("parseHTTPResponse get_user_id XMLHttpRequest") == [
        "parsehttpresponse", "parse", "http", "response", "get_user_id", "get", "user", "id",
        "xmlhttprequest", "xml", "http", "request",
    ]


def test_stopwords_keywords_and_single_characters_are_dropped():
    assert code_tokens("def f(self, x): return None if the x is a Y") == []


def lucene_bm25(corpus: list[list[str]], query: list[str], k1: float = 1.5, b: float = 0.75) -> list[float]:
    n = len(corpus)
    avgdl = sum(map(len, corpus)) / n
    scores = []
    for doc in corpus:
        score = 0.0
        for term in query:  # a repeated query term counts each time, as in bm25s
            df = sum(term in d for d in corpus)
            if df == 0:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            tf = doc.count(term)
            score += idf * tf / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(score)
    return scores


TEXTS = {
    "a.py:parse_response": "def parse_response(raw):\n    return Response(raw).json()",
    "a.py:render_page": "def render_page(page):\n    return template.render(page)",
    "b.py:Client.send": "def send(self, request):\n    response = self.session.send(request)\n    return parse_response(response)",
    "b.py:Client.close": "def close(self):\n    self.session.close()",
}


def test_scores_equal_lucene_bm25_and_ranking_breaks_ties_by_id():
    index = Bm25Index.build(list(TEXTS), list(TEXTS.values()))
    query = "the response parser fails to parse a response"
    expected = lucene_bm25([code_tokens(t) for t in TEXTS.values()], code_tokens(query))

    hits = index.search(query, k=10)

    by_id = dict(hits)
    for node_id, score in zip(TEXTS, expected):
        assert by_id.get(node_id, 0.0) == pytest.approx(score, rel=1e-5, abs=1e-6)
    assert [h[0] for h in hits] == ["a.py:parse_response", "b.py:Client.send"]  # zero scores left out


def test_saved_index_answers_the_same(tmp_path):
    index = Bm25Index.build(list(TEXTS), list(TEXTS.values()))
    index.save(tmp_path / "snap")

    loaded = Bm25Index.load(tmp_path / "snap")

    assert loaded.search("render the page", 3) == index.search("render the page", 3)
    assert Bm25Index.load(tmp_path / "missing") is None
    assert not (tmp_path / "snap.tmp").exists()


def test_query_of_only_stopwords_returns_nothing():
    assert Bm25Index.build(list(TEXTS), list(TEXTS.values())).search("the and of", 5) == []


def test_relative_scores_are_over_the_best_match_in_the_whole_index():
    index = Bm25Index.build(["a", "b", "c"], ["parse header", "parse header header", "render body"])
    best = max(score for _, score in index.search("header", 3))
    relative = index.relative_scores("header", ["a", "c", "missing"])
    assert relative == {"a": pytest.approx(dict(index.search("header", 3))["a"] / best), "c": 0.0, "missing": 0.0}
    assert 0 < relative["a"] < 1 and index.relative_scores("header", ["b"]) == {"b": 1.0}
    assert index.relative_scores("the of", ["a"]) == {"a": 0.0}


def test_holding_finds_the_functions_with_every_word_and_no_others():
    index = Bm25Index.build(["a.py:f", "a.py:g", "b.py:h"], ["must not be negative total", "negative total", "must be"])
    assert index.holding("total must not be negative") == ["a.py:f"]
    assert index.holding("negative total") == ["a.py:f", "a.py:g"]
    assert index.holding("negative balance") == []  # a word no function has
    assert index.holding("is not") == ["a.py:f", "a.py:g", "b.py:h"]  # glue words alone rule nothing out
