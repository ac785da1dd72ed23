"""Parse results of (path, blob) pairs kept between index runs, so re-indexing a commit parses only what changed.

What a file parses to depends only on its path, its bytes (the git blob) and the code that turns them into a
graph; `pipeline.graph_format.graph_format()` fingerprints that code (the extractors, the graph builder and resolver,
the tree-sitter grammars; its syntax trees, so edited comments and docstrings change nothing), and a cache keeps the
results of one format, so a new spider version never reuses a stale result. The cache holds what resolution needs and the file's counts, not source text: a cached file's nodes are
the base snapshot's (`indexer.pipeline.index`), never rebuilt.

One SQLite file under the spider home (`SPIDER_PARSE_CACHE` overrides; `off` disables it). Any process may read
and write it; a lost or corrupt cache only costs parsing time, never correctness: a damaged file (garbage,
truncated) is started afresh, and the index run says so. It keeps one graph format: a
new spider version empties it on first use. Its results are bounded (`SPIDER_PARSE_CACHE_MB`): past the bound,
the results read or written longest ago go first (SQLite reuses their pages, so the file stops growing).
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from spider.core.records import content_hash, entity_id
from spider.core.schema import Label
from spider.core.settings import PARSE_CACHE_MB, Settings
from spider.indexer.parse.facts import UNREADABLE_BLOB, ParseOutcome

_KEYS_PER_QUERY = 500  # below SQLite's bound on host parameters
_SCHEMA = "2"  # 2: rows carry `used`, the last run that read or wrote them
_DAMAGED = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})  # the file is no sound SQLite database
_SQLITE_FILES = ("", "-wal", "-shm", "-journal")  # a database's file and its journals, by suffix


def is_damaged(error: sqlite3.Error) -> bool:
    """Whether SQLite failed because the file itself is damaged (garbage, truncated), not because it is busy,
    locked or read-only (extended result codes keep the primary one in their low byte)."""
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) in _DAMAGED


def _make_private(location: Path) -> None:
    """The file is its owner's only (SQLite's journals copy its mode), also when it was made before this rule."""
    os.close(os.open(location, os.O_WRONLY | os.O_CREAT, 0o600))
    os.chmod(location, 0o600)


@dataclass(frozen=True, slots=True)
class CachedParse:
    outcome: ParseOutcome  # without code (`without_code`)
    function_hashes: dict[str, str]  # function id -> content hash: what the embed stage needs of a copied file


class LazyReferences(Sequence):
    """A cached file's references, unpickled when first read. Incremental resolution reads those of the few files
    it resolves again; unpickling every file's (96k on apache/dubbo) cost 0.44 s of a 3.4 s incremental run."""

    def __init__(self, pickled: bytes) -> None:
        self._pickled = pickled
        self._items: list | None = None

    @classmethod
    def of(cls, references: Sequence) -> "LazyReferences":
        return cls(pickle.dumps(list(references), protocol=5))

    def _list(self) -> list:
        if self._items is None:
            self._items = pickle.loads(self._pickled)
        return self._items

    def __getitem__(self, index):
        return self._list()[index]

    def __len__(self) -> int:
        return len(self._list())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __reduce__(self):
        return LazyReferences, (self._pickled,)


def without_code(outcome: ParseOutcome) -> ParseOutcome:
    """The outcome as cached: facts for resolution and counts, without the file's and its entities' text, and
    with references read only when needed."""
    if outcome.facts is None:
        return dataclasses.replace(outcome, code=None)
    entities = [dataclasses.replace(e, code="") for e in outcome.facts.entities]
    references = LazyReferences.of(outcome.facts.references)
    facts = dataclasses.replace(outcome.facts, entities=entities,
                                references=references)  # type: ignore[arg-type]  # a Sequence standing in for the list
    return dataclasses.replace(outcome, code=None, facts=facts)


def function_hashes(outcome: ParseOutcome) -> dict[str, str]:
    if outcome.facts is None:
        return {}
    ids = ((entity_id(outcome.path, e.qualname), e) for e in outcome.facts.entities if e.label == Label.FUNCTION)
    return {eid: content_hash(eid, e.code) for eid, e in ids}


class ParseCache:
    """`location` None: a cache that misses every lookup and stores nothing. It keeps results of one `graph_format`
    (`pipeline.graph_format`), and at most `max_bytes` of them. A damaged file is started afresh, whether opening
    finds it or a lookup or a store does; `rebuilt` says so."""

    def __init__(self, location: str | os.PathLike | None, graph_format: str,
                 max_bytes: int = PARSE_CACHE_MB << 20) -> None:
        self.location = Path(location) if location is not None else None
        self.graph_format = graph_format
        self.connection: sqlite3.Connection | None = None
        self.max_bytes = max_bytes
        self.rebuilt = False
        if self.location is not None:
            try:
                self._open(self.location)
            except sqlite3.DatabaseError as error:
                if not is_damaged(error):
                    raise
                self._rebuild(self.location)

    def _open(self, location: Path) -> None:
        """Connect, and lay out a new file (or one of an older layout or graph format) as this spider reads it."""
        _make_private(location)
        self.connection = sqlite3.connect(location, timeout=30, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        if self._meta("schema") != _SCHEMA:  # an older layout: start afresh (only parsing time is lost)
            with self.connection:
                self.connection.execute("DROP TABLE IF EXISTS parses")
                self.connection.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (_SCHEMA,))
        self.connection.execute("CREATE TABLE IF NOT EXISTS parses (key TEXT PRIMARY KEY, outcome BLOB NOT NULL, "
                                "used INTEGER NOT NULL)")
        self.connection.execute("CREATE INDEX IF NOT EXISTS parses_used ON parses (used)")
        self._forget_other_formats()
        self.run = int(self._meta("runs") or 0) + 1  # this cache's use counter: the `used` of what it touches
        self.connection.execute("INSERT OR REPLACE INTO meta VALUES ('runs', ?)", (str(self.run),))

    def _rebuild(self, location: Path) -> None:
        """Replace a damaged file with an empty cache: only parsing time is lost."""
        self.close()
        for suffix in _SQLITE_FILES:
            Path(f"{location}{suffix}").unlink(missing_ok=True)
        self.rebuilt = True
        self._open(location)

    def _recover(self, error: sqlite3.Error) -> None:
        """After a lookup or a store failed: start a damaged file afresh (if even that fails, the cache is not
        used again); any other failure (locked too long, changed by another spider version) only costs this call."""
        if self.location is None or not is_damaged(error):
            return
        try:
            self._rebuild(self.location)
        except (OSError, sqlite3.Error):
            self.close()

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection, for the methods only an open cache reaches."""
        assert self.connection is not None
        return self.connection

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _forget_other_formats(self) -> None:
        """Results of another graph format are never read again: drop them when the format changes."""
        if self._meta("graph_format") != self.graph_format:
            with self._db:
                self._db.execute("DELETE FROM parses WHERE substr(key, 1, ?) != ?",
                                 (len(self.graph_format) + 1, f"{self.graph_format}:"))
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('graph_format', ?)", (self.graph_format,))

    def _key(self, path: str, blob: str) -> str:
        return f"{self.graph_format}:{blob}:{path}"

    def get_many(self, files: Iterable[tuple[str, str]]) -> dict[str, CachedParse]:
        """What is cached of the given (path, blob) pairs, by path; misses are absent. A cache that fails (locked
        too long, changed by another spider version, damaged) misses."""
        if self.connection is None:
            return {}
        try:
            return self._get_many(files)
        except sqlite3.Error as error:
            self._recover(error)
            return {}

    def _get_many(self, files: Iterable[tuple[str, str]]) -> dict[str, CachedParse]:
        wanted = {self._key(path, blob): path for path, blob in files}
        keys = list(wanted)
        found: dict[str, CachedParse] = {}
        for start in range(0, len(keys), _KEYS_PER_QUERY):
            chunk = keys[start : start + _KEYS_PER_QUERY]
            rows = self._db.execute(
                f"SELECT key, outcome FROM parses WHERE key IN ({','.join('?' * len(chunk))})", chunk
            )
            for key, blob in rows:
                try:
                    cached = pickle.loads(blob)
                except Exception:  # written by an incompatible Python or truncated: parse the file again
                    continue
                if isinstance(cached, CachedParse):
                    found[wanted[key]] = cached
        hits = [key for key, path in wanted.items() if path in found]
        with self._db:
            for start in range(0, len(hits), _KEYS_PER_QUERY):
                chunk = hits[start : start + _KEYS_PER_QUERY]
                self._db.execute(f"UPDATE parses SET used = ? WHERE key IN ({','.join('?' * len(chunk))})",
                                        [self.run, *chunk])
        return found

    def put_many(self, outcomes: Iterable[tuple[str, ParseOutcome]]) -> None:
        """Store (blob, outcome) pairs of freshly parsed files; the outcomes are stripped of code here. A cache
        that fails stores nothing."""
        if self.connection is None:
            return
        try:
            self._put_many(outcomes)
        except sqlite3.Error as error:
            self._recover(error)

    def _put_many(self, outcomes: Iterable[tuple[str, ParseOutcome]]) -> None:
        rows = [(self._key(o.path, blob), pickle.dumps(CachedParse(without_code(o), function_hashes(o)), protocol=5),
                 self.run) for blob, o in outcomes if o.skipped != UNREADABLE_BLOB]
        if rows:
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO parses VALUES (?, ?, ?)", rows)
                self._evict()

    def _evict(self) -> None:
        """Past `max_bytes` of pages in use (O(1) to read), drop the results used longest ago until a tenth of the
        bound is free."""
        page_size, pages, free = (self._db.execute(f"PRAGMA {p}").fetchone()[0]
                                  for p in ("page_size", "page_count", "freelist_count"))
        excess = (pages - free) * page_size - self.max_bytes * 9 // 10
        if excess <= self.max_bytes // 10:
            return
        freed, count = 0, 0
        for (size,) in self._db.execute("SELECT length(key) + length(outcome) FROM parses ORDER BY used, rowid"):
            freed, count = freed + size, count + 1
            if freed >= excess:
                break
        self._db.execute("DELETE FROM parses WHERE rowid IN "
                                "(SELECT rowid FROM parses ORDER BY used, rowid LIMIT ?)", (count,))

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def __enter__(self) -> "ParseCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_parse_cache(graph_format: str, settings: Settings) -> ParseCache:
    """The cache `settings` name (SPIDER_PARSE_CACHE, else under their home), of results of `graph_format`."""
    caches = settings.caches
    location = caches.parse_cache_file(settings.home)
    if location is None:
        return ParseCache(None, graph_format)
    location.parent.mkdir(parents=True, exist_ok=True)
    try:
        return ParseCache(location, graph_format, caches.parse_cache_max_mb << 20)
    except (OSError, sqlite3.Error):  # unwritable or someone else's: index without it rather than fail
        return ParseCache(None, graph_format)
