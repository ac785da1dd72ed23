"""Settings are checked where they are read: a bad one is a line that names it, never a traceback."""

from __future__ import annotations

import pytest
from spider.core.errors import SpiderError
from spider.core.redact import redact
from spider.core.settings import Settings


@pytest.mark.parametrize("value", ["abc", "-5", "0", "nan", "inf", ""])
def test_llm_timeout_must_be_a_positive_number(monkeypatch, value):
    monkeypatch.setenv("SPIDER_LLM_TIMEOUT", value)
    with pytest.raises(SpiderError, match="SPIDER_LLM_TIMEOUT must be a positive number of seconds"):
        Settings.from_env().llm.timeout


def test_llm_timeout_reads_fractions(monkeypatch):
    monkeypatch.setenv("SPIDER_LLM_TIMEOUT", "2.5")
    assert Settings.from_env().llm.timeout == 2.5


@pytest.mark.parametrize("uri", ["not a uri", "http://host:7687", "bolt://", "bolt://host:99999", "bolt://[::1",
                                 "neo4j+s://user:SECRET@host:7687"])
def test_a_neo4j_uri_that_is_not_one_is_refused_in_one_line(monkeypatch, uri):
    monkeypatch.setenv("NEO4J_URI", uri)
    with pytest.raises(SpiderError, match="^NEO4J_URI .*(not a Neo4j URI|holds credentials)") as caught:
        Settings.from_env().neo4j
    assert "SECRET" not in redact(str(caught.value)) and "\n" not in str(caught.value)


@pytest.mark.parametrize("uri", ["bolt://127.0.0.1:7687", "neo4j+s://db.example", "bolt+ssc://[::1]:7687"])
def test_neo4j_uris_of_every_driver_scheme_are_taken(monkeypatch, uri):
    monkeypatch.setenv("NEO4J_URI", uri)
    assert Settings.from_env().neo4j.uri == uri
