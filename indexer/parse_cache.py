"""Parse results of (path, blob) pairs kept between index runs, so re-indexing a commit parses only what changed.

What a file parses to depends only on its path, its bytes (the git blob) and the code that turns them into a
graph; `GRAPH_FORMAT` fingerprints that code (the extractors, the graph builder, the tree-sitter grammars), so
a new spider version never reuses a stale result. The cache holds what resolution needs and the file's counts,
not source text: a cached file's nodes are copied from the base snapshot (`indexer.pipeline`), never rebuilt.

One SQLite file under the spider home (`SPIDER_PARSE_CACHE` overrides; `off` disables it). Any process may read
and write it; a lost or corrupt cache only costs parsing time, never correctness. It keeps one graph format: a
new spider version empties it on first use.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import sqlite3
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Iterable

from indexer.graph_schema import Label
from indexer.model import content_hash, entity_id
from indexer.parse import ParseOutcome
from indexer.settings import spider_home

_SOURCES = Path(__file__).parent
_FORMAT_MODULES = ("walk.py", "parse.py", "model.py", "codegraph.py", "graph_schema.py", "languages")
_GRAMMARS = ("tree-sitter", "tree-sitter-python", "tree-sitter-java", "tree-sitter-javascript", "tree-sitter-typescript")
_KEYS_PER_QUERY = 500  # below SQLite's bound on host parameters


def _graph_format() -> str:
    digest = hashlib.sha256()
    for name in _FORMAT_MODULES:
        target = _SOURCES / name
        for source in sorted(target.rglob("*.py")) if target.is_dir() else [target]:
            digest.update(source.name.encode() + b"\0" + source.read_bytes())
    for package in _GRAMMARS:
        digest.update(f"{package}={metadata.version(package)}".encode())
    return digest.hexdigest()[:16]


GRAPH_FORMAT = _graph_format()  # equal formats: equal (path, blob) -> equal nodes; stored in each snapshot's stats


@dataclass(frozen=True, slots=True)
class CachedParse:
    outcome: ParseOutcome  # without code (`without_code`)
    function_hashes: dict[str, str]  # function id -> content hash: what the embed stage needs of a copied file


def without_code(outcome: ParseOutcome) -> ParseOutcome:
    """The outcome as cached: facts for resolution and counts, without the file's and its entities' text."""
    if outcome.facts is None:
        return dataclasses.replace(outcome, code=None)
    entities = [dataclasses.replace(e, code="") for e in outcome.facts.entities]
    return dataclasses.replace(outcome, code=None, facts=dataclasses.replace(outcome.facts, entities=entities))


def function_hashes(outcome: ParseOutcome) -> dict[str, str]:
    if outcome.facts is None:
        return {}
    ids = ((entity_id(outcome.path, e.qualname), e) for e in outcome.facts.entities if e.label == Label.FUNCTION)
    return {eid: content_hash(eid, e.code) for eid, e in ids}


def _key(path: str, blob: str) -> str:
    return f"{GRAPH_FORMAT}:{blob}:{path}"


class ParseCache:
    """`location` None: a cache that misses every lookup and stores nothing."""

    def __init__(self, location: str | os.PathLike | None) -> None:
        self.connection: sqlite3.Connection | None = None
        if location is not None:
            self.connection = sqlite3.connect(location, timeout=30, isolation_level=None)
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("CREATE TABLE IF NOT EXISTS parses (key TEXT PRIMARY KEY, outcome BLOB NOT NULL)")
            self.connection.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self._forget_other_formats()

    def _forget_other_formats(self) -> None:
        """Results of another graph format are never read again: drop them when the format changes."""
        row = self.connection.execute("SELECT value FROM meta WHERE key = 'graph_format'").fetchone()
        if row is None or row[0] != GRAPH_FORMAT:
            with self.connection:
                self.connection.execute("DELETE FROM parses WHERE substr(key, 1, ?) != ?",
                                        (len(GRAPH_FORMAT) + 1, f"{GRAPH_FORMAT}:"))
                self.connection.execute("INSERT OR REPLACE INTO meta VALUES ('graph_format', ?)", (GRAPH_FORMAT,))

    def get_many(self, files: Iterable[tuple[str, str]]) -> dict[str, CachedParse]:
        """What is cached of the given (path, blob) pairs, by path; misses are absent."""
        if self.connection is None:
            return {}
        wanted = {_key(path, blob): path for path, blob in files}
        keys = list(wanted)
        found: dict[str, CachedParse] = {}
        for start in range(0, len(keys), _KEYS_PER_QUERY):
            chunk = keys[start : start + _KEYS_PER_QUERY]
            rows = self.connection.execute(
                f"SELECT key, outcome FROM parses WHERE key IN ({','.join('?' * len(chunk))})", chunk
            )
            for key, blob in rows:
                try:
                    cached = pickle.loads(blob)
                except Exception:  # written by an incompatible Python or truncated: parse the file again
                    continue
                if isinstance(cached, CachedParse):
                    found[wanted[key]] = cached
        return found

    def put_many(self, outcomes: Iterable[tuple[str, ParseOutcome]]) -> None:
        """Store (blob, outcome) pairs of freshly parsed files; the outcomes are stripped of code here."""
        if self.connection is None:
            return
        rows = [(_key(o.path, blob), pickle.dumps(CachedParse(without_code(o), function_hashes(o)), protocol=5))
                for blob, o in outcomes]
        if rows:
            with self.connection:
                self.connection.executemany("INSERT OR REPLACE INTO parses VALUES (?, ?)", rows)

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()

    def __enter__(self) -> "ParseCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_parse_cache() -> ParseCache:
    setting = os.environ.get("SPIDER_PARSE_CACHE", "")
    if setting.lower() == "off":
        return ParseCache(None)
    location = Path(setting) if setting else spider_home() / "parse-cache.sqlite3"
    location.parent.mkdir(parents=True, exist_ok=True)
    try:
        return ParseCache(location)
    except sqlite3.Error:  # unwritable or corrupt: index without it rather than fail
        return ParseCache(None)
