"""One embedding per function, in Qdrant: a small port (`VectorStore`, here) with two adapters, one module each.

- `edge.EdgeVectorStore`: Qdrant Edge (embedded, one shard per repository under SPIDER_HOME/vectors/<collection>/);
  the single-machine default. A shard is held only while an operation uses it, so processes take turns.
- `server.QdrantServerStore`: qdrant-client against a Qdrant server (QDRANT_URL, QDRANT_API_KEY). Given an existing
  `QdrantClient`, it also runs on qdrant-client's local mode, which is how the tests stand in for a server.

`open_store.open_vector_store` picks one.

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

import re
import uuid
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from hashlib import sha256
from typing import Any

import numpy as np

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
EDGE_LOCK_WAIT = 3.0  # seconds to retry a locked Edge shard (or a repository another writer holds) before giving up
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


def counted_vectors(count: int) -> str:
    """`1,234 vectors`, `1 vector`."""
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
        with self._using(repo):
            found = self._existing_ids(repo, list(by_id))
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
        with self._using(repo, create=True):
            existing = self._existing_ids(repo, list(prepared))
            fresh = [(pid, vec, payload) for pid, (vec, payload) in prepared.items() if pid not in existing]
            for batch in _batches(fresh, UPSERT_BATCH):
                self._insert(repo, list(batch))
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
        with self._using(repo):
            return self._search(self._vector(vector), repo, limit, members)

    def _search(self, query: np.ndarray, repo: str, limit: int, members: Members | None) -> list[Hit]:
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
        with self._using(repo):
            doomed = [pid for pid, content_hash in self._scroll(repo) if content_hash not in used]  # read, then write
            for batch in _batches(doomed, ID_BATCH):
                self._delete(repo, list(batch))
        return len(doomed)

    def count(self, repo: str | None = None) -> int:
        """Points in the collection, or in `repo`."""
        return self._count(repo, exact=True)

    def check(self, repo: str) -> None:
        """Fail now, in one line, if `repo`'s vectors cannot be opened here (a damaged store, no room to open it,
        vectors of another size): before an index run writes anything, not after."""
        with self._using(repo):
            pass

    def reserve(self, repo: str, points: int) -> None:
        """Fail now, in one line, if the store lacks the room to insert `points` more points of `repo` and index
        them: before the embedding they would cost, not after."""
        self._reserve(repo, points)

    def build_index(self, repo: str) -> None:
        """Index what was inserted into `repo` since the last call (HNSW), so searches stay fast as it grows."""
        self._build_index(repo)

    def writing(self, repo: str) -> AbstractContextManager[None]:
        """Be the one writer of `repo`'s vectors in this store while the block runs: an index run holds it from
        before its graph write until its snapshot is complete, so of two runs of one repository the second fails
        (StoreBusy) before it writes anything. Runs of other repositories, and every reader, go on. Nothing to do
        where the engine takes concurrent writers (a server)."""
        return nullcontext()

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

    def _existing_ids(self, repo: str, ids: list[str]) -> set[str]:
        found: set[str] = set()
        for batch in _batches(ids, ID_BATCH):
            found |= self._existing(repo, list(batch))
        return found

    def _using(self, repo: str, create: bool = False) -> AbstractContextManager[object]:
        """Keep what `repo`'s operations use open while the block runs, so that the engine calls of one operation
        share it (`create`: made if missing); nothing where nothing needs opening."""
        return nullcontext()

    # ---- engine primitives (ids are canonical UUID strings) -----------------------------------------------

    @abstractmethod
    def _existing(self, repo: str, ids: list[str]) -> set[str]:
        """The ids (of points of `repo`) that exist."""

    @abstractmethod
    def _insert(self, repo: str, points: list[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        """Insert-only: an id that exists already is left as it is."""

    @abstractmethod
    def _delete(self, repo: str, ids: list[str]) -> None: ...

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
    def _reserve(self, repo: str, points: int) -> None: ...

    @abstractmethod
    def _build_index(self, repo: str) -> None: ...

    @abstractmethod
    def _close(self) -> None: ...


__all__ = [
    "Hit", "Members", "Point", "SPIDER_NAMESPACE", "VectorStore", "WINDOW",
    "WINDOWS_PER_FUNCTION", "best_per_function", "collection_name", "member_of", "member_window", "members_of",
    "order_hits", "point_id", "point_key", "window_key",
]
