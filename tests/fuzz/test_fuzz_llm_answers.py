"""Hostile LLM answers, repository text and --edges strings: parsing never raises anything but its own error, a
decision admits only offered ids, and no repository text leaves the prompt's fences."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st
from spider.core.errors import SpiderError
from spider.core.schema import Rel
from spider.query.expand import MAX_DEPTH, edges_label, parse_edges
from spider.query.select.decide import Profile, SelectionRequest
from spider.query.select.llm import Completion, LLMSelector
from spider.query.select.prompt import ANSWER_LIMIT, MalformedAnswer, parse_selection, user_prompt

from tests.fixtures.llm_server import OUR_LINES, ScriptedBackend, fenced_ids, prompt_sections

STATUSES = {"ok", "malformed answer"}
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
prose = st.sampled_from(["", "Sure. ", "```json\n", "\n```", "{", "}", "[", "]", '"', "{\"selected\": ", "\\"]) | st.text(
    max_size=30)
nests = st.builds(lambda opener, depth, tail: opener + "[" * depth + tail, st.sampled_from(['{"selected": ', "", "{"]),
                  st.integers(0, 20_000), st.sampled_from(["", "]" * 20, '"a"]}'])) | st.builds(
    lambda depth: '{"a":' * depth, st.integers(0, 5_000))
huge_numbers = st.builds(lambda digits: '{"selected": [' + "9" * digits + "]}", st.integers(1, 6_000))


def selection_answers(offered: list[str]) -> st.SearchStrategy[str]:
    """Answers that mix offered ids with made-up ones and values that are not ids, wrapped in prose."""
    items = st.sampled_from(offered) | st.text(max_size=20) | json_values
    objects = st.builds(lambda ids, extra: json.dumps({**extra, "selected": ids}), st.lists(items, max_size=6),
                        st.dictionaries(st.text(max_size=8), json_values, max_size=2))
    return st.builds(lambda before, obj, after: before + obj + after, prose, objects, prose)


def answers(offered: list[str]) -> st.SearchStrategy[str]:
    return st.text() | st.builds(json.dumps, json_values) | selection_answers(offered) | nests | huge_numbers


class NoCache:
    """The decision path without a disk cache: every example reaches parse_selection."""

    def key(self, *args: object) -> str:
        return ""

    def get(self, key: str) -> None:
        return None

    def put(self, key: str, completion: Completion) -> None:
        pass


def request(offered: list[str], seed: str = "a.py:seed", code: str = "def f(): pass", issue: str = "fix it"
            ) -> SelectionRequest:
    candidates = [Profile(node_id, code, rank=i + 2, score=0.5, hops=1, rel_type="CONTAINS")
                  for i, node_id in enumerate(offered)]
    return SelectionRequest(issue, Profile(seed, code, 1, 0.9), candidates, 0, 1, "contains (up to 4 hops) relationships")


ids = st.text(min_size=1, max_size=60)
offered_ids = st.lists(ids, min_size=1, max_size=5, unique=True)


@given(st.data())
def test_parse_selection_returns_ids_or_says_malformed(data):
    text = data.draw(answers(data.draw(offered_ids)))
    try:
        selected = parse_selection(text)
    except MalformedAnswer:
        return
    assert isinstance(selected, list) and all(isinstance(item, str) for item in selected)


@given(st.data())
def test_a_decision_admits_only_offered_ids_and_never_raises(data):
    offered = data.draw(offered_ids)
    text = data.draw(answers(offered))
    decision = LLMSelector(ScriptedBackend(text), NoCache()).decide(request(offered))

    assert decision.status in STATUSES and set(decision.admitted) <= set(offered)
    assert len(decision.admitted) == len(set(decision.admitted))
    assert decision.status == "ok" or decision.admitted == []


@given(offered_ids, st.data())
def test_a_clean_answer_maps_back_to_exactly_the_offered_ids_it_names(offered, data):
    named = data.draw(st.lists(st.sampled_from(offered) | ids, max_size=8))
    text = json.dumps({"selected": named})
    decision = LLMSelector(ScriptedBackend(text), NoCache()).decide(request(offered))

    assert decision.status == ("ok" if len(text) <= ANSWER_LIMIT else "malformed answer")
    if decision.status == "ok":
        assert decision.admitted == [i for i in dict.fromkeys(named) if i in offered]
        assert decision.ignored == [i for i in dict.fromkeys(named) if i not in offered]


@given(offered_ids, ids, st.text(max_size=200), st.text(max_size=200))
def test_no_repository_text_leaves_the_fences(offered, seed, code, issue):
    prompt = user_prompt(request(offered, seed, code, issue))
    assert [line for line in prompt_sections(prompt)[0] if not OUR_LINES.fullmatch(line)] == []
    assert fenced_ids(prompt) == offered and fenced_ids(prompt, "center") == [seed]


edge_parts = st.builds(
    lambda rel, sep, depth: rel + sep + depth,
    st.sampled_from(["contains", "INVOKES", " imports ", "Inherits", "calls", ""]), st.sampled_from([":", "", "::"]),
    st.sampled_from(["", "0", "2", "4", "7", "04", " 3 ", "\u00b2", "\u0664", "9" * 5_000]) | st.text(max_size=4))


@given(st.lists(edge_parts, max_size=5).map(",".join) | st.text(max_size=60))
def test_edges_parse_or_fail_in_one_line(spec):
    try:
        edges = parse_edges(spec)
    except SpiderError as error:
        assert "\n" not in str(error)
        return
    parts = [part.strip() for part in spec.split(",") if part.strip()]
    assert all(re.fullmatch(r"[^:]+:\s*[0-9]+", part) for part in parts)  # every type with its depth
    assert sorted(part.split(":")[0].strip().lower() for part in parts) == sorted(r.value.lower() for r in edges)
    assert all(1 <= depth <= MAX_DEPTH for depth in edges.values())


@given(st.dictionaries(st.sampled_from(list(Rel)), st.integers(1, MAX_DEPTH), min_size=1))
def test_an_edges_label_parses_back_to_its_edges(edges):
    assert parse_edges(edges_label(edges)) == edges
