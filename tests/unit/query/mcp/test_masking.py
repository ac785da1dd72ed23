"""An answer's secrets are masked wherever they sit in it, and it stays the same kind of answer."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from spider.query.mcp.server import masked

SECRET = "sk-ant-unit-secret-4821"


class Answer(BaseModel):
    text: str
    rows: list[dict[str, Any]]


@pytest.fixture(autouse=True)
def planted(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)


def test_a_secret_anywhere_in_an_answer_is_masked_and_the_answer_keeps_its_type():
    answer = Answer(text=f"key={SECRET}", rows=[{"a": [SECRET, {"b": f'"{SECRET}"'}]}, {"c": 1}])
    shown = masked(answer)
    assert isinstance(shown, Answer) and SECRET not in shown.model_dump_json()
    assert shown == Answer(text="key=***", rows=[{"a": ["***", {"b": '"***"'}]}, {"c": 1}])


def test_a_uri_password_is_masked_without_breaking_the_json_around_it():
    answer = Answer(text="bolt://neo4j:hunter2hunter2@db:7687", rows=[{"u": "https://x:pw@h"}, {"v": "me@host"}])
    shown = masked(answer)
    assert shown.text == "bolt://neo4j:***@db:7687"
    assert shown.rows == [{"u": "https://x:***@h"}, {"v": "me@host"}]


def test_an_answer_without_secrets_is_returned_as_it_is():
    answer = Answer(text="def charge(amount): ...", rows=[])
    assert masked(answer) is answer
