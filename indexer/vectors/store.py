"""One embedding per function, in Qdrant: a small port (`VectorStore`) with two adapters.

- `EdgeVectorStore`: Qdrant Edge (embedded, one shard directory per collection under SPIDER_HOME/vectors/);
  the single-machine default. Single-process: the shard's WAL is locked by whoever opened it.
- `QdrantServerStore`: qdrant-client against a Qdrant server (QDRANT_URL, QDRANT_API_KEY). Given an existing
  `QdrantClient`, it also runs on qdrant-client's local mode, which is how the tests stand in for a server.

A point is one (repo, content_hash): its id is `point_id(repo, content_hash)`, so code that does not change is
embedded once however many snapshots contain it. A function longer than the model reads has up to
WINDOWS_PER_FUNCTION points, one per window of its code (`point_id(repo, content_hash, window)`); a search
scores a function by its best window. Points are immutable: payload repo, content_hash, node_id, path,
language, kind (and `window` from the second on), with a keyword index on `repo`. Which snapshots contain a
point is NOT stored here: the graph knows it (every Function node carries its content_hash), and a search takes the wanted snapshot's
functions as `members` (`members_of`: point key -> node id and content hash), so a search reads no payload at all.
Keeping membership out of the payload is what lets the points
stay in HNSW segments: Qdrant moves any point whose payload changes out of its indexed segment, so a
per-snapshot list rewritten on every commit kept the store unindexed (bench/results/embed.md).

The algorithms live in `VectorStore`; adapters supply a handful of engine primitives, so both run the same logic
and the integration tests check the two give the same answers.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
import warnings
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np
from spider.core.cache_files import write_atomically
from spider.core.errors import ConfigurationError, CorruptStore, OutOfSpace, ServiceUnavailable, StoreBusy
from spider.core.settings import Settings, spider_home
from spider.indexer.disk_space import allocated_bytes, free_bytes, hole_bytes, mib, reading_holes_takes_space
from spider.indexer.vectors.edge_panics import PanicSafeShard

# Fixed forever: changing it re-ids (and so re-embeds) every stored point.
SPIDER_NAMESPACE = uuid.UUID("cc192231-188c-44c9-8a63-6d23d626b10c")

REPO = "repo"
CONTENT_HASH = "content_hash"
NODE_ID = "node_id"
WINDOW = "window"  # payload of a function's second and later points: which window of its code it embeds
HIT_FIELDS = [NODE_ID, CONTENT_HASH]  # what a search without members reads of the payload
# Points per function at most: its first window (what the model reads of its start) and the next ones of its
# code. Measured (bench/results/function_windows.md): 71% of the benchmark's instances (C's: 86%) have a target longer
# than one window, and 8 windows lift the hybrid first stage most (R@20 0.601 -> 0.625; 1, 2 and 4 measured too;
# 16 leave its Recall@20 as it is in every instance: bench/results/function_windows_16.md).
WINDOWS_PER_FUNCTION = 8
LEGACY_SNAPSHOTS = "snapshots"  # the payload list of snapshots stores written before membership moved to the graph

UPSERT_BATCH = 256  # points per insert request
ID_BATCH = 1024  # ids per retrieve / delete request
SCROLL_PAGE = 1024
TIE_MARGIN = 16  # extra hits fetched so equal scores at the cut are ordered by node_id, not by engine order
OVERFETCH_PERCENT = 110  # candidates per expected member: members are not spread evenly among the repo's points
TIE_EPSILON = 1e-6  # cosine scores closer than this are equal (float noise between engines is ~1e-7)
HNSW_EF_MIN = 768  # search ef floor: at 512 one build left one real query's top-20 at recall 0.55 (768: 0.95, ties)
# Each repository's HNSW graph: links per node and build beam. Measured on real vectors (110k points, 177 issue
# queries, three builds each): worst query's top-45 recall >= 0.978; with 16 / 100 it was 0.91, once 0.3.
HNSW_M = 32
HNSW_EF_CONSTRUCT = 200
EDGE_LOCK_WAIT = 3.0  # seconds to retry a locked Edge shard before giving up
STORE_ID_FILE = "spider-store-id"  # in an Edge shard's directory: the store's identity, made when it is first opened
PRESENCE_SAMPLE = 8  # points looked up to check a store that a snapshot records as holding its vectors
# Room an Edge shard's writes need besides their points': a new shard's (or segment's) files take 3.1 MiB
# (measured on tmpfs). Opening an existing shard needs less: it rewrites its config and each segment's
# segment.json, a page each, beside the old before the rename.
EDGE_HEADROOM = 4 << 20
EDGE_REOPEN_BYTES = 256 << 10
# What a point takes in an Edge shard, at most, by vector size: its vector, payload and id in a segment and in
# the WAL. Measured on tmpfs with spider's payloads: 809 B at 32-d, 3,979 B at 384-d.
EDGE_POINT_BYTES_PER_DIM = 10
EDGE_POINT_BYTES_FIXED = 1024

Point = tuple[str, Sequence[float] | np.ndarray, dict[str, Any]]  # (content_hash, vector, {node_id, path, …})
Members = Mapping[int, tuple[str, str]]  # a snapshot's functions: point key (`point_key`) -> (node_id, content_hash)


@dataclass(frozen=True, slots=True)
class Hit:
    node_id: str
    score: float  # cosine similarity
    content_hash: str


def collection_name(model_name: str, dim: int) -> str:
    """`spider-<model slug>-<dim>`: lowercase [a-z0-9-], safe as a directory and a Qdrant collection name.

    "sentence-transformers/all-MiniLM-L6-v2", 384 -> "spider-sentence-transformers-all-minilm-l6-v2-384".
    Very long names are cut and get a hash of the full name, so they stay distinct and under 100 characters.
    """
    if dim <= 0:
        raise ValueError(f"vector size must be positive, not {dim}")
    slug = re.sub(r"[^a-z0-9]+", "-", model_name.lower()).strip("-")
    if not slug:
        raise ValueError(f"model name {model_name!r} has no letters or digits")
    if len(slug) > 64:
        slug = f"{slug[:55].rstrip('-')}-{sha256(model_name.encode()).hexdigest()[:8]}"
    return f"spider-{slug}-{dim}"


def _point_uuid(repo: str, content_hash: str) -> uuid.UUID:
    return uuid.uuid5(SPIDER_NAMESPACE, f"{repo}\n{content_hash}")


def window_key(key: int, window: int) -> int:
    """The key of a function's `window`-th point (1: its own, `point_key`): the number of the window less one
    in the key's lowest bits, so a hit on any window maps back to its function without a table."""
    return key ^ (window - 1)


def point_id(repo: str, content_hash: str, window: int = 1) -> str:
    """The point of one piece of code in one repo (of its `window`-th window of code): uuid5 of (repo,
    content_hash), `window_key`'d, as a canonical UUID string."""
    return str(uuid.UUID(int=window_key(_point_uuid(repo, content_hash).int, window)))


def point_key(repo: str, content_hash: str) -> int:
    """`point_id` as the integer of its UUID: what a search matches hits by (no UUID-to-string per hit)."""
    return _point_uuid(repo, content_hash).int


def member_window(members: Members, key: int) -> tuple[tuple[str, str], int] | None:
    """The function of `members` a point (`key`, any of its windows) embeds and which window it is, or None."""
    for window in range(1, WINDOWS_PER_FUNCTION + 1):
        if (member := members.get(window_key(key, window))) is not None:
            return member, window
    return None


def member_of(members: Members, key: int) -> tuple[str, str] | None:
    """The function of `members` a point (`key`, any of its windows) embeds, or None."""
    found = member_window(members, key)
    return found[0] if found is not None else None


def best_per_function(hits: Iterable[Hit]) -> list[Hit]:
    """Each function's best-scoring hit (its windows' best cosine), `order_hits` ordered."""
    best: dict[str, Hit] = {}
    for hit in hits:
        if hit.node_id not in best or hit.score > best[hit.node_id].score:
            best[hit.node_id] = hit
    return order_hits(best.values())


def members_of(repo: str, functions: Iterable[Sequence[str]]) -> dict[int, tuple[str, str]]:
    """The `Members` of a snapshot of `repo` from its functions' (node_id, content_hash) pairs."""
    return {point_key(repo, content_hash): (node_id, content_hash) for node_id, content_hash in functions}


def order_hits(hits: Iterable[Hit]) -> list[Hit]:
    """Score descending; scores within TIE_EPSILON of their neighbour count as equal and go by node_id ascending.

    Engines compute the same cosine with different float rounding (qdrant-client's local mode even differs
    from itself after a reopen, by ~1e-8), so identical vectors can score 1 ulp apart; exact-score ties would
    then be ordered by noise.
    """
    ranked = sorted(hits, key=lambda hit: (-hit.score, hit.node_id))
    ordered: list[Hit] = []
    start = 0
    for end in range(1, len(ranked) + 1):
        if end == len(ranked) or ranked[end - 1].score - ranked[end].score > TIE_EPSILON:
            group = ranked[start:end]
            ordered.extend(group if len(group) == 1 else sorted(group, key=lambda h: h.node_id))
            start = end
    return ordered


def public_url(url: str) -> str:
    """`url` without user, password, query and fragment: what may be shown and recorded of it."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "QDRANT_URL"
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _vectors(count: int) -> str:
    return f"{count:,} vector{'s' * (count != 1)}"


def _batches(items: Sequence, size: int) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class VectorStore(ABC):
    """The port. One collection (one embedding model) of function embeddings, filtered by repo."""

    collection: str
    dim: int
    store_id: str  # which store this is: recorded on the snapshots whose vectors were embedded into it
    where: str  # the store, for messages: "the local vector store DIR", "the Qdrant server at URL"

    # ---- public operations -------------------------------------------------------------------------------

    def missing(self, repo: str, content_hashes: Iterable[str]) -> set[str]:
        """The hashes that have no point yet in `repo` (to embed before `insert`)."""
        return {h for h, _ in self.missing_windows(repo, {h: 1 for h in content_hashes}, first=1)}

    def missing_windows(self, repo: str, windows: Mapping[str, int], first: int = 2) -> set[tuple[str, int]]:
        """(content_hash, window) of the windows `first`..windows[content_hash] that have no point in `repo`."""
        by_id = {point_id(repo, h, w): (h, w) for h, n in windows.items() for w in range(first, n + 1)}
        found = self._existing_ids(list(by_id))
        return {key for pid, key in by_id.items() if pid not in found}

    def holds_all(self, repo: str, content_hashes: Iterable[str], thorough: bool) -> bool:
        """Whether every hash has its point in `repo`: each one looked up if `thorough`, else a few spread over
        them (enough where a run recorded embedding them all here: only `delete_unused` deletes points)."""
        hashes = sorted(set(content_hashes))
        if not thorough:
            hashes = hashes[:: max(1, len(hashes) // PRESENCE_SAMPLE)]
        return not self.missing(repo, hashes)

    def insert(self, repo: str, points: Iterable[Point]) -> int:
        """Store (content_hash, vector, payload) points of `repo` (payload `window`: the function's window it
        embeds, 1 if absent); returns how many were new. A point that exists keeps its vector (same repo and
        content hash: same code, same embedding)."""
        prepared: dict[str, tuple[np.ndarray, dict[str, Any]]] = {}
        for content_hash, vector, payload in points:
            pid = point_id(repo, content_hash, payload.get(WINDOW, 1))
            if pid in prepared:
                continue
            if NODE_ID not in payload:
                raise ValueError(f"payload of {content_hash} has no {NODE_ID}")
            prepared[pid] = (self._vector(vector), {**payload, REPO: repo, CONTENT_HASH: content_hash})
        existing = self._existing_ids(list(prepared))
        fresh = [(pid, vec, payload) for pid, (vec, payload) in prepared.items() if pid not in existing]
        for batch in _batches(fresh, UPSERT_BATCH):
            self._insert(list(batch))
        return len(fresh)

    def search(
        self, vector: Sequence[float] | np.ndarray, repo: str, limit: int = 100, members: Members | None = None,
    ) -> list[Hit]:
        """The top-`limit` functions by cosine among the points of `repo` that are `members` (the wanted
        snapshot's functions, `members_of`; None: every point of the repo), each scored by its best window:
        exact where the engine has no HNSW index yet, HNSW with ef >= 1.5 x the candidates fetched where it has one.

        Candidates are fetched in proportion to the share of the repo's points that are members, and again,
        twice as many, in the rare case too few were. With members, hits are named from them and no payload is
        read (reading it was a third of a 500-candidate search). Ordered as `order_hits` says (score
        descending, equal scores by node_id), whatever order the engine gave.
        """
        if limit <= 0 or (members is not None and not members):
            return []
        query = self._vector(vector)
        wanted = limit + TIE_MARGIN
        fetch = wanted
        if members is not None:  # wanted / (share of the repo's points that are members) x OVERFETCH_PERCENT %
            points = max(1, self._count(repo, exact=False))  # an estimate is enough, and exact costs a scan
            fetch = -(-wanted * points * OVERFETCH_PERCENT // (min(len(members), points) * 100))
        while True:
            ef = max(HNSW_EF_MIN, fetch * 3 // 2)
            if members is None:
                rows = self._query(query, repo, fetch, ef, payload=True)
                hits = best_per_function(Hit(payload[NODE_ID], score, payload[CONTENT_HASH])  # type: ignore[index]
                                         for score, _, payload in rows)  # payload=True
            else:
                rows = self._query(query, repo, fetch, ef, payload=False)
                hits = best_per_function(Hit(member[0], score, member[1]) for score, key, _ in rows
                                         if (member := member_of(members, key)) is not None)
            if len(hits) >= wanted or len(rows) < fetch:
                return hits[:limit]
            fetch *= 2

    def delete_unused(self, repo: str, used: Collection[str]) -> int:
        """Delete the points of `repo` whose content hash is not in `used` (the hashes of every snapshot of
        `repo` left in the graph); returns how many went."""
        doomed = [pid for pid, content_hash in self._scroll(repo) if content_hash not in used]  # read, then write
        for batch in _batches(doomed, ID_BATCH):
            self._delete(list(batch))
        return len(doomed)

    def count(self, repo: str | None = None) -> int:
        """Points in the collection, or in `repo`."""
        return self._count(repo, exact=True)

    def reserve(self, points: int) -> None:
        """Fail now, in one line, if the store lacks the room to insert `points` more points and index them:
        before the embedding they would cost, not after."""
        self._reserve(points)

    def build_index(self) -> None:
        """Index what was inserted since the last call (HNSW), so searches stay fast as the store grows."""
        self._build_index()

    def close(self) -> None:
        self._close()

    def __enter__(self) -> VectorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- shared helpers ----------------------------------------------------------------------------------

    def _vector(self, vector: Sequence[float] | np.ndarray) -> np.ndarray:
        array = np.asarray(vector, dtype=np.float32)
        if array.shape != (self.dim,):
            raise ValueError(f"vector of shape {array.shape} given to a collection of size {self.dim}")
        return array

    def _existing_ids(self, ids: list[str]) -> set[str]:
        found: set[str] = set()
        for batch in _batches(ids, ID_BATCH):
            found |= self._existing(list(batch))
        return found

    # ---- engine primitives (ids are canonical UUID strings) -----------------------------------------------

    @abstractmethod
    def _existing(self, ids: list[str]) -> set[str]:
        """The ids that exist."""

    @abstractmethod
    def _insert(self, points: list[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        """Insert-only: an id that exists already is left as it is."""

    @abstractmethod
    def _delete(self, ids: list[str]) -> None: ...

    @abstractmethod
    def _scroll(self, repo: str) -> Iterator[tuple[str, str]]:
        """(id, content_hash) of every point of `repo`."""

    @abstractmethod
    def _query(
        self, vector: np.ndarray, repo: str, limit: int, ef: int, payload: bool,
    ) -> list[tuple[float, int, dict | None]]:
        """Nearest neighbours among `repo`'s points as (score, `point_key`, {node_id, content_hash} if `payload`),
        best first; `ef` for HNSW-indexed segments."""

    @abstractmethod
    def _count(self, repo: str | None, exact: bool) -> int:
        """Points in `repo` (or all); with exact=False the engine's estimate from its payload index."""

    @abstractmethod
    def _reserve(self, points: int) -> None: ...

    @abstractmethod
    def _build_index(self) -> None: ...

    @abstractmethod
    def _close(self) -> None: ...


# ---- Qdrant Edge --------------------------------------------------------------------------------------------


class EdgeVectorStore(VectorStore):
    """A Qdrant Edge shard in `directory` (created on first use), WAL on. Points are searched exactly until
    `build_index` (Edge's optimize) has put them in HNSW segments: one graph per repository (`repo` is a tenant
    index, m = 0, payload_m = 32: Qdrant's multitenant layout), because a repo filter over one shared graph
    lost whole queries (top-45 recall 0.0 for some; bench/results/embed.md).

    Only one handle may hold a shard: while another process (or handle) has it, opening retries for
    `lock_wait` seconds, then raises SpiderError. Every engine call is a `PanicSafeShard`'s: where damaged files
    make the engine panic, opening or any later call raises CorruptStore.
    """

    def __init__(self, directory: str | os.PathLike, dim: int, *, lock_wait: float = EDGE_LOCK_WAIT) -> None:
        import qdrant_edge as E

        self._E = E
        self.directory = Path(directory)
        self.collection = self.directory.name
        self.dim = dim
        config = E.EdgeConfig(
            vectors=E.EdgeVectorParams(size=dim, distance=E.Distance.Cosine), wal_enabled=True,
            hnsw_config=E.HnswIndexConfig(m=0, payload_m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT,
                                          full_scan_threshold=10_000),
        )
        self.where = f"the local vector store {self.directory}"
        self._ensure_space(self._space_to_open(), "opening it")
        self._shard: Any = PanicSafeShard(self._open(config, lock_wait), self.directory)  # a panic: CorruptStore
        try:
            self.store_id = self._own_id()
            schema = self._shard.info().payload_schema
            if LEGACY_SNAPSHOTS in schema:  # membership used to live in the payload: its index only slows opening
                self._shard.update(E.UpdateOperation.delete_field_index(LEGACY_SNAPSHOTS))
            index = schema.get(REPO)
            if not getattr(index and index.params, "is_tenant", False):  # a shard from before tenant indexing
                if index is not None:
                    self._shard.update(E.UpdateOperation.delete_field_index(REPO))
                self._shard.update(E.UpdateOperation.create_field_index(REPO, E.KeywordIndexParams(is_tenant=True)))
        except BaseException:
            self._shard.close()  # release the WAL lock
            raise

    def _open(self, config: Any, lock_wait: float):
        E = self._E
        self.directory.mkdir(parents=True, exist_ok=True)
        shards = PanicSafeShard(E.EdgeShard, self.directory, opening=True)
        deadline = time.monotonic() + lock_wait
        while True:
            segments = self.directory / "segments"
            try:
                if segments.is_dir() and any(segments.iterdir()):
                    return shards.load(str(self.directory), config)
                return shards.create(str(self.directory), config)
            except CorruptStore:
                raise
            except Exception as exc:  # qdrant_edge raises plain Exception; tell cases apart by message
                message = str(exc)
                busy = "WouldBlock" in message or "already contains segment data" in message  # held / racing create
                if busy and time.monotonic() < deadline:
                    time.sleep(0.1)
                    continue
                if busy:
                    raise StoreBusy(
                        f"the local vector store is in use by another spider process ({self.directory}); "
                        "wait for it, or set QDRANT_URL to use a Qdrant server"
                    ) from None
                if "incompatible" in message:
                    raise ConfigurationError(
                        f"the local vector store {self.directory} holds vectors of another size than {self.dim} "
                        "or another distance; delete that directory to rebuild it"
                    ) from None
                raise ServiceUnavailable(
                    f"cannot open the local vector store {self.directory}: {_one_line(message)}"
                ) from None

    def _ensure_space(self, needed: int, doing: str) -> None:
        """Raise OutOfSpace unless the shard's disk has `needed` bytes free: Edge grows memory-mapped files,
        and a write into one on a full disk kills the process (SIGBUS) instead of failing."""
        free = free_bytes(self.directory)
        if free < needed:
            raise OutOfSpace(f"{self.where} has {mib(free)} free, and {doing} needs about {mib(needed)}: "
                             "free space on its disk, then run again")

    def _space_to_open(self) -> int:
        """Loading a shard reads its mapped segment files ahead (all but the payload storage, which spider's
        shards keep cold: Edge's default); where reading a hole takes a page (tmpfs), that fills their holes."""
        segments = self.directory / "segments"
        if not segments.is_dir():
            return EDGE_HEADROOM  # a new shard
        fills = hole_bytes(segments, skip={"payload_storage"}) if reading_holes_takes_space(segments) else 0
        return EDGE_REOPEN_BYTES + fills

    def _space_to_insert(self, points: int) -> int:
        return points * (EDGE_POINT_BYTES_PER_DIM * self.dim + EDGE_POINT_BYTES_FIXED)

    def _unindexed_bytes(self) -> int:
        """What `build_index` may rewrite: the segments whose vectors have no HNSW index yet (Edge's optimizer
        writes an indexed copy of each before it drops it). A segment whose config cannot be read counts."""
        segments = self.directory / "segments"
        if not segments.is_dir():
            return 0
        return sum(allocated_bytes(segment) for segment in segments.iterdir()
                   if segment.is_dir() and not _hnsw_indexed(segment))

    def _own_id(self) -> str:
        """The id in the shard's directory, made when the shard is first opened (under its lock): a store made
        again in its place (its directory deleted) is another store."""
        path = self.directory / STORE_ID_FILE
        try:
            existing = path.read_bytes().decode("ascii", "replace").strip()  # garbage is no id, as none is
        except FileNotFoundError:
            existing = ""
        if re.fullmatch(r"[0-9a-f]{32}", existing):
            return existing
        made = uuid.uuid4().hex
        write_atomically(path, made.encode())
        return made

    def _filter(self, repo: str | None):
        E = self._E
        return None if repo is None else E.Filter(must=[E.FieldCondition(key=REPO, match=E.MatchValue(repo))])

    def _existing(self, ids: list[str]) -> set[str]:
        return {str(r.id) for r in self._shard.retrieve(ids, False, False)}  # both flags required despite the stub

    def _insert(self, points: list[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        E = self._E
        self._ensure_space(EDGE_HEADROOM + self._space_to_insert(len(points)), f"storing {_vectors(len(points))}")
        self._shard.update(E.UpdateOperation.upsert_points(
            [E.Point(id=pid, vector=vec, payload=payload) for pid, vec, payload in points],
            update_mode=E.UpdateMode.InsertOnly,
        ))

    def _delete(self, ids: list[str]) -> None:
        self._ensure_space(EDGE_HEADROOM, f"deleting {_vectors(len(ids))}")
        self._shard.update(self._E.UpdateOperation.delete_points(ids))  # type: ignore[arg-type]  # str ids are ids

    def _scroll(self, repo: str) -> Iterator[tuple[str, str]]:
        E = self._E
        offset = None
        while True:
            records, offset = self._shard.scroll(E.ScrollRequest(
                offset=offset, limit=SCROLL_PAGE, filter=self._filter(repo), with_payload=[CONTENT_HASH],
                with_vector=False,
            ))
            for r in records:
                yield str(r.id), r.payload[CONTENT_HASH]
            if offset is None:
                return

    def _query(
        self, vector: np.ndarray, repo: str, limit: int, ef: int, payload: bool,
    ) -> list[tuple[float, int, dict | None]]:
        E = self._E
        found = self._shard.query(E.QueryRequest(
            query=E.Query.Nearest(vector), limit=limit, filter=self._filter(repo),
            with_payload=HIT_FIELDS if payload else False, with_vector=False, params=E.SearchParams(hnsw_ef=ef),
        ))
        return [(p.score, p.id.int, p.payload if payload else None) for p in found]

    def _count(self, repo: str | None, exact: bool) -> int:
        return self._shard.count(self._E.CountRequest(exact=exact, filter=self._filter(repo)))

    def _reserve(self, points: int) -> None:
        stored = self._space_to_insert(points)  # and again when indexed, with the points not indexed yet
        self._ensure_space(EDGE_HEADROOM + 2 * stored + self._unindexed_bytes(),
                           f"storing and indexing {_vectors(points)}")

    def _build_index(self) -> None:
        self._ensure_space(EDGE_HEADROOM + self._unindexed_bytes(), "indexing its vectors")
        self._shard.optimize()  # Edge has no background optimizer; below its indexing threshold this is a no-op

    def _close(self) -> None:
        if self._shard is not None:
            if free_bytes(self.directory) >= EDGE_HEADROOM:  # else its WAL keeps every update for the next open
                self._shard.flush()
            self._shard.close()
            self._shard = None


# ---- Qdrant server (qdrant-client) -----------------------------------------------------------------------------


class QdrantServerStore(VectorStore):
    """Collection `collection` on a Qdrant server, or on whatever an existing `client` speaks to (local mode in tests).

    Writes wait for the server (read-your-writes). A store closes only a client it created itself.
    """

    def __init__(
        self, collection: str, dim: int, *, url: str | None = None, api_key: str | None = None,
        client: Any = None, timeout: int = 30,
    ) -> None:
        from qdrant_client import QdrantClient, models

        if (url is None) == (client is None):
            raise ValueError("give a Qdrant url or a QdrantClient, not both or neither")
        self._M = models
        self.collection = collection
        self.dim = dim
        self._where = public_url(url) if url else "the given Qdrant client"
        self.where = f"the Qdrant server at {self._where}" if url else self._where
        self.store_id = f"qdrant {self._where} {collection}" if url else f"qdrant-client {id(client):x} {collection}"
        self._owns = client is None
        self._client = client or QdrantClient(url=url, api_key=api_key or None, timeout=timeout,
                                              check_compatibility=False)
        try:
            self._ensure_collection()
        except BaseException:
            self._close()
            raise

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Connection and authentication failures become one-line SpiderErrors; anything else propagates."""
        from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

        try:
            yield
        except UnexpectedResponse as exc:
            if exc.status_code in (401, 403):
                raise ServiceUnavailable(
                    f"the Qdrant server at {self._where} refused the API key (HTTP {exc.status_code}); "
                    "check QDRANT_API_KEY"
                ) from None
            raise ServiceUnavailable(
                f"the Qdrant server at {self._where} answered HTTP {exc.status_code}: "
                f"{_one_line(exc.content.decode(errors='replace'))[:300]}"
            ) from None
        except ResponseHandlingException as exc:
            raise ServiceUnavailable(
                f"cannot reach the Qdrant server at {self._where} ({_one_line(exc.source or exc)}); "
                "check QDRANT_URL, or unset it to use the local vector store"
            ) from None

    def _ensure_collection(self) -> None:
        from qdrant_client.http.exceptions import UnexpectedResponse

        M = self._M
        with self._errors():
            if not self._client.collection_exists(self.collection):
                try:
                    self._client.create_collection(
                        self.collection, vectors_config=M.VectorParams(size=self.dim, distance=M.Distance.COSINE),
                        hnsw_config=M.HnswConfigDiff(m=0, payload_m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT),
                    )
                except UnexpectedResponse as exc:
                    if exc.status_code != 409:  # 409: another worker created it first
                        raise
            # one unnamed vector per point, as created above: its parameters, not a dict of named ones
            params: Any = self._client.get_collection(self.collection).config.params.vectors
            if params.size != self.dim or params.distance != M.Distance.COSINE:
                raise ConfigurationError(
                    f"Qdrant collection {self.collection} at {self._where} holds vectors of size {params.size} "
                    f"({params.distance}), not {self.dim} (Cosine)"
                )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # local mode: "Payload indexes have no effect"
                self._client.create_payload_index(
                    self.collection, field_name=REPO, wait=True,
                    field_schema=M.KeywordIndexParams(type=M.KeywordIndexType.KEYWORD, is_tenant=True),
                )

    def _filter(self, repo: str | None):
        M = self._M
        return None if repo is None else M.Filter(must=[M.FieldCondition(key=REPO, match=M.MatchValue(value=repo))])

    def _existing(self, ids: list[str]) -> set[str]:
        with self._errors():
            records = self._client.retrieve(self.collection, ids=ids, with_payload=False, with_vectors=False)
        return {str(r.id) for r in records}

    def _insert(self, points: list[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        M = self._M
        with self._errors():
            self._client.upsert(
                self.collection,
                points=[M.PointStruct(id=pid, vector=vec.tolist(), payload=payload) for pid, vec, payload in points],
                update_mode=M.UpdateMode.INSERT_ONLY, wait=True,
            )

    def _delete(self, ids: list[str]) -> None:
        with self._errors():
            selector = self._M.PointIdsList(points=ids)  # type: ignore[arg-type]  # str ids are ids (list invariance)
            self._client.delete(self.collection, points_selector=selector, wait=True)

    def _scroll(self, repo: str) -> Iterator[tuple[str, str]]:
        offset = None
        while True:
            with self._errors():
                records, offset = self._client.scroll(
                    self.collection, scroll_filter=self._filter(repo), limit=SCROLL_PAGE, offset=offset,
                    with_payload=[CONTENT_HASH], with_vectors=False,
                )
            for r in records:
                yield str(r.id), r.payload[CONTENT_HASH]  # type: ignore[index]  # asked with_payload
            if offset is None:
                return

    def _query(
        self, vector: np.ndarray, repo: str, limit: int, ef: int, payload: bool,
    ) -> list[tuple[float, int, dict | None]]:
        with self._errors(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # local mode: "search_params are not supported" (it is exact anyway)
            found = self._client.query_points(
                self.collection, query=vector.tolist(), limit=limit, query_filter=self._filter(repo),
                search_params=self._M.SearchParams(hnsw_ef=ef), with_payload=HIT_FIELDS if payload else False,
                with_vectors=False,
            ).points
        return [(p.score, uuid.UUID(str(p.id)).int, p.payload if payload else None) for p in found]

    def _count(self, repo: str | None, exact: bool) -> int:
        with self._errors():
            return self._client.count(self.collection, count_filter=self._filter(repo), exact=exact).count

    def _reserve(self, points: int) -> None:
        """Nothing to check here: a Qdrant server watches its own disk."""

    def _build_index(self) -> None:
        """Nothing to do: a Qdrant server indexes new points in the background."""

    def _close(self) -> None:
        if self._owns and self._client is not None:
            self._client.close()
        self._client = None


def _hnsw_indexed(segment: Path) -> bool:
    """Whether an Edge segment's vectors have an HNSW index, by its segment.json."""
    try:
        vectors = json.loads((segment / "segment.json").read_text())["config"]["vector_data"].values()
        return all(vector["index"]["type"] == "hnsw" for vector in vectors)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def open_vector_store(model_name: str, dim: int) -> VectorStore:
    """The vectors of one embedding model: its collection (`collection_name`) on the Qdrant server named by
    QDRANT_URL (and QDRANT_API_KEY) if set, else the local Edge shard SPIDER_HOME/vectors/<collection>/."""
    collection = collection_name(model_name, dim)
    qdrant = Settings.from_env().qdrant
    if qdrant.url:
        return QdrantServerStore(collection, dim, url=qdrant.url, api_key=qdrant.api_key)
    return EdgeVectorStore(spider_home() / "vectors" / collection, dim)


__all__ = [
    "EdgeVectorStore", "Hit", "Members", "Point", "QdrantServerStore", "SPIDER_NAMESPACE", "VectorStore", "WINDOW",
    "WINDOWS_PER_FUNCTION", "best_per_function", "collection_name", "member_of", "member_window", "members_of",
    "open_vector_store", "order_hits", "point_id", "point_key", "public_url", "window_key",
]
