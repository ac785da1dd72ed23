"""Settings are checked where they are read: a bad one is a line that names it, never a traceback."""

from __future__ import annotations

from pathlib import Path

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


def test_settings_given_in_code_read_no_environment(monkeypatch, tmp_path):
    """`Settings(...)` is what it is given, defaults for the rest; `from_env` is what the environment says."""
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path / "env-home"))
    monkeypatch.setenv("SPIDER_PARSE_CACHE", "off")
    monkeypatch.setenv("SPIDER_LLM_CACHE", str(tmp_path / "env-llm-cache"))
    given = Settings(home=tmp_path / "home")
    assert given.caches.parse_cache_file(given.home) == tmp_path / "home" / "parse-cache.sqlite3"
    assert given.llm.cache_dir(given.home) == tmp_path / "home" / "llm-cache"
    assert given.caches.repo_cache_dir(given.home) == tmp_path / "home" / "repo-cache"
    assert Settings().home == Path.home() / ".spider" and Settings().embed_model is None
    read = Settings.from_env()
    assert read.home == tmp_path / "env-home" and read.caches.parse_cache_file(read.home) is None
    assert read.llm.cache_dir(read.home) == tmp_path / "env-llm-cache"
