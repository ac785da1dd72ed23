"""SPIDER_HOME and the caches spider writes are readable by their owner only: they hold pickles and code."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

from spider.core.cache_files import write_atomically
from spider.core.settings import Settings
from spider.indexer.parse.cache import open_parse_cache
from spider.query.select.llm import AnswerCache, Completion


def test_spider_home_is_private(tmp_path):
    new, loose = tmp_path / "new", tmp_path / "loose"
    loose.mkdir(mode=0o755)
    loose.chmod(0o755)
    for home in (new, loose):
        assert Settings(home=home).home_dir() == home
        assert stat.S_IMODE(home.stat().st_mode) == 0o700


def test_cache_files_are_private(tmp_path):
    path = tmp_path / "cache" / "state.pickle"
    write_atomically(path, b"x")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_llm_answer_cache_files_are_private(tmp_path):
    cache = AnswerCache(tmp_path / "llm-cache")
    cache.put("key", Completion("{}", 1, 1))
    assert stat.S_IMODE((tmp_path / "llm-cache" / "key.json").stat().st_mode) == 0o600


def test_parse_cache_file_is_private(monkeypatch, tmp_path):
    location = tmp_path / "parse-cache.sqlite3"
    location.touch(mode=0o644)
    location.chmod(0o644)  # one made before the rule
    monkeypatch.setenv("SPIDER_PARSE_CACHE", str(location))
    with open_parse_cache("a-format", Settings.from_env()):
        assert stat.S_IMODE(location.stat().st_mode) == 0o600


def test_importing_spider_writes_nothing(tmp_path):
    """Configuration and state are touched at the doors, never on import (the graph format used to be computed,
    and its cache written into SPIDER_HOME, when its module was imported)."""
    home = tmp_path / "home"
    modules = "spider.indexer, spider.query, spider.indexer.pipeline.stages, spider.cli.main, spider.query.mcp"
    subprocess.run([sys.executable, "-c", f"import {modules}"], check=True,
                   env={**os.environ, "SPIDER_HOME": str(home)})
    assert not home.exists()
