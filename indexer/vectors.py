"""One embedding per function, in Qdrant: a small port (`VectorStore`) with two adapters.

- `EdgeVectorStore`: Qdrant Edge (embedded, one shard directory per collection under SPIDER_HOME/vectors/);
  the single-machine default. Single-process: the shard's WAL is locked by whoever opened it.
- `QdrantServerStore`: qdrant-client against a Qdrant server (QDRANT_URL, QDRANT_API_KEY). Given an existing
  `QdrantClient`, it also runs on qdrant-client's local mode, which is how the tests stand in for a server.

A point is one (repo, content_hash): its id is `point_id(repo, content_hash)`, so code that does not change is
embedded once however many snapshots contain it. Payload: repo, snapshots (list), content_hash, node_id, path,
language, kind; keyword indexes on `repo` and `snapshots`. Neither engine can append to a list atomically, so
snapshot membership is read-modify-write: points are grouped by their resulting list, one payload write per
group, and only ids a retrieve confirmed are written (the engines disagree on missing ids).

The algorithms live in `VectorStore`; adapters supply a handful of engine primitives, so both run the same logic
and the integration tests check the two give the same answers.
"""

from __future__ import annotations

import os
import re
import time
import uuid
import warnings
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path
from typing import Any

import numpy as np

from indexer.errors import SpiderError, StoreBusy
from indexer.settings import spider_home

# Fixed forever: changing it re-ids (and so re-embeds) every stored point.
SPIDER_NAMESPACE = uuid.UUID("cc192231-188c-44c9-8a63-6d23d626b10c")

REPO = "repo"
SNAPSHOTS = "snapshots"
CONTENT_HASH = "content_hash"
NODE_ID = "node_id"
INDEXED_FIELDS = (REPO, SNAPSHOTS)

UPSERT_BATCH = 256  # points per insert request
ID_BATCH = 1024  # ids per retrieve / set-payload / delete request
SCROLL_PAGE = 1024
TIE_MARGIN = 16  # extra hits fetched so equal scores at the cut are ordered by node_id, not by engine order
TIE_EPSILON = 1e-6  # cosine scores closer than this are equal (float noise between engines is ~1e-7)
EDGE_LOCK_WAIT = 3.0  # seconds to retry a locked Edge shard before giving up

Point = tuple[str, Sequence[float] | np.ndarray, dict[str, Any]]  # (content_hash, vector, {node_id, path, …})


@dataclass(frozen=True, slots=True)
class Hit:
    node_id: str
    score: float  # cosine similarity
    content_hash: str
    path: str | None = None
    language: str | None = None
    kind: str | None = None


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


def point_id(repo: str, content_hash: str) -> str:
    """The point of one piece of code in one repo: uuid5 of (repo, content_hash), as a canonical UUID string."""
    return str(uuid.uuid5(SPIDER_NAMESPACE, f"{repo}\n{content_hash}"))


def order_hits(hits: Iterable[Hit]) -> list[Hit]:
    """Score descending; scores within TIE_EPSILON of their neighbour count as equal and go by node_id ascending.

    Engines compute the same cosine with different float rounding (qdrant-client's local mode even differs
    from itself after a reopen, by ~1e-8), so identical vectors can score 1 ulp apart; exact-score ties would
    then be ordered by noise.
    """
    ranked = sorted(hits, key=lambda hit: (-hit.score, hit.node_id))
    ordered: list[Hit] = []
    group: list[Hit] = []
    for hit in ranked:
        if group and group[-1].score - hit.score > TIE_EPSILON:
            ordered.extend(sorted(group, key=lambda h: h.node_id))
            group = []
        group.append(hit)
    ordered.extend(sorted(group, key=lambda h: h.node_id))
    return ordered


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _batches(items: Sequence, size: int) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class VectorStore(ABC):
    """The port. One collection (one embedding model) of function embeddings, filtered by repo and snapshot."""

    collection: str
    dim: int

    # ---- public operations -------------------------------------------------------------------------------

    def missing(self, repo: str, content_hashes: Iterable[str]) -> set[str]:
        """The hashes that have no point yet in `repo` (to embed before `upsert`)."""
        by_id = {point_id(repo, h): h for h in content_hashes}
        found = self._snapshots_of(list(by_id))
        return {h for pid, h in by_id.items() if pid not in found}

    def upsert(self, repo: str, snapshot: str, points: Iterable[Point]) -> int:
        """Store (content_hash, vector, payload) points of `repo` as members of `snapshot`; returns how many were new.

        A point that already exists keeps its vector and gains `snapshot` in its list. New points are written
        insert-only, then every point's list is re-read, so a point inserted meanwhile by someone else still
        gets `snapshot`.
        """
        prepared: dict[str, tuple[np.ndarray, dict[str, Any]]] = {}
        for content_hash, vector, payload in points:
            pid = point_id(repo, content_hash)
            if pid in prepared:
                continue
            if NODE_ID not in payload:
                raise ValueError(f"payload of {content_hash} has no {NODE_ID}")
            stored = {**payload, REPO: repo, SNAPSHOTS: [snapshot], CONTENT_HASH: content_hash}
            prepared[pid] = (self._vector(vector), stored)
        ids = list(prepared)
        existing = self._snapshots_of(ids)
        fresh = [(pid, vec, payload) for pid, (vec, payload) in prepared.items() if pid not in existing]
        for batch in _batches(fresh, UPSERT_BATCH):
            self._insert(list(batch))
        self._add(snapshot, self._snapshots_of(ids))
        return len(fresh)

    def add_snapshot(self, repo: str, snapshot: str, content_hashes: Iterable[str]) -> int:
        """Make the existing points of these hashes members of `snapshot`; returns how many exist (unknown hashes
        are skipped: find them with `missing` and `upsert` them)."""
        found = self._snapshots_of(list(dict.fromkeys(point_id(repo, h) for h in content_hashes)))
        self._add(snapshot, found)
        return len(found)

    def search(self, vector: Sequence[float] | np.ndarray, repo: str, snapshot: str, limit: int = 100) -> list[Hit]:
        """Exact top-`limit` cosine neighbours among the points of `repo` in `snapshot`.

        Ordered as `order_hits` says (score descending, equal scores by node_id), whatever order the engine gave.
        """
        if limit <= 0:
            return []
        rows = self._query(self._vector(vector), repo, snapshot, limit + TIE_MARGIN)
        hits = [
            Hit(
                node_id=payload[NODE_ID], score=float(score), content_hash=payload[CONTENT_HASH],
                path=payload.get("path"), language=payload.get("language"), kind=payload.get("kind"),
            )
            for _, score, payload in rows
        ]
        return order_hits(hits)[:limit]

    def remove_snapshot(self, repo: str, snapshot: str) -> tuple[int, int]:
        """Drop `snapshot` from every point of `repo`; delete points left in no snapshot. Returns (updated, deleted)."""
        members = list(self._scroll(repo, snapshot))  # read everything first: writes would move the scroll
        groups: dict[tuple[str, ...], list[str]] = {}
        orphans: list[str] = []
        for pid, snapshots in members:
            rest = tuple(sorted(set(snapshots) - {snapshot}))
            (groups.setdefault(rest, []) if rest else orphans).append(pid)
        self._write_groups(groups)
        for batch in _batches(orphans, ID_BATCH):
            self._delete(list(batch))
        return sum(map(len, groups.values())), len(orphans)

    def count(self, repo: str | None = None, snapshot: str | None = None) -> int:
        """Points in the collection, in `repo`, in `snapshot` (of any repo) or in both."""
        return self._count(repo, snapshot)

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

    def _snapshots_of(self, ids: list[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for batch in _batches(ids, ID_BATCH):
            found.update(self._retrieve(list(batch)))
        return found

    def _add(self, snapshot: str, current: dict[str, list[str]]) -> None:
        groups: dict[tuple[str, ...], list[str]] = {}
        for pid, snapshots in current.items():
            if snapshot not in snapshots:
                groups.setdefault(tuple(sorted({*snapshots, snapshot})), []).append(pid)
        self._write_groups(groups)

    def _write_groups(self, groups: dict[tuple[str, ...], list[str]]) -> None:
        for snapshots, ids in sorted(groups.items()):
            for batch in _batches(ids, ID_BATCH):
                self._set_snapshots(list(batch), list(snapshots))

    # ---- engine primitives (ids are canonical UUID strings) -----------------------------------------------

    @abstractmethod
    def _retrieve(self, ids: list[str]) -> dict[str, list[str]]:
        """id -> snapshots for the ids that exist."""

    @abstractmethod
    def _insert(self, points: list[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        """Insert-only: an id that exists already is left as it is."""

    @abstractmethod
    def _set_snapshots(self, ids: list[str], snapshots: list[str]) -> None:
        """Set the `snapshots` payload key of existing points (other keys untouched)."""

    @abstractmethod
    def _delete(self, ids: list[str]) -> None: ...

    @abstractmethod
    def _scroll(self, repo: str, snapshot: str) -> Iterator[tuple[str, list[str]]]:
        """(id, snapshots) of every point of `repo` in `snapshot`."""

    @abstractmethod
    def _query(self, vector: np.ndarray, repo: str, snapshot: str, limit: int) -> list[tuple[str, float, dict]]:
        """Exact filtered nearest neighbours as (id, score, payload)."""

    @abstractmethod
    def _count(self, repo: str | None, snapshot: str | None) -> int: ...

    @abstractmethod
    def _close(self) -> None: ...


# ---- Qdrant Edge --------------------------------------------------------------------------------------------


class EdgeVectorStore(VectorStore):
    """A Qdrant Edge shard in `directory` (created on first use), WAL on, exact search.

    Only one handle may hold a shard: while another process (or handle) has it, opening retries for
    `lock_wait` seconds, then raises SpiderError.
    """

    def __init__(self, directory: str | os.PathLike, dim: int, *, lock_wait: float = EDGE_LOCK_WAIT) -> None:
        import qdrant_edge as E

        self._E = E
        self.directory = Path(directory)
        self.collection = self.directory.name
        self.dim = dim
        config = E.EdgeConfig(
            vectors=E.EdgeVectorParams(size=dim, distance=E.Distance.Cosine), wal_enabled=True,
        )
        self._shard = self._open(config, lock_wait)
        try:
            schema = self._shard.info().payload_schema
            for field in INDEXED_FIELDS:
                if field not in schema:
                    self._shard.update(E.UpdateOperation.create_field_index(field, E.PayloadSchemaType.Keyword))
        except BaseException:
            self._shard.close()  # release the WAL lock
            raise
        self._exact = E.SearchParams(exact=True)  # Edge builds HNSW only on optimize(); stay exact regardless

    def _open(self, config: Any, lock_wait: float):
        E = self._E
        self.directory.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + lock_wait
        while True:
            segments = self.directory / "segments"
            try:
                if segments.is_dir() and any(segments.iterdir()):
                    return E.EdgeShard.load(str(self.directory), config)
                return E.EdgeShard.create(str(self.directory), config)
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
                    raise SpiderError(
                        f"the local vector store {self.directory} holds vectors of another size than {self.dim} "
                        "or another distance; delete that directory to rebuild it"
                    ) from None
                raise SpiderError(
                    f"cannot open the local vector store {self.directory}: {_one_line(message)}"
                ) from None

    def _filter(self, repo: str | None, snapshot: str | None):
        E = self._E
        must = [E.FieldCondition(key=key, match=E.MatchValue(value))
                for key, value in ((REPO, repo), (SNAPSHOTS, snapshot)) if value is not None]
        return E.Filter(must=must) if must else None

    def _retrieve(self, ids: list[str]) -> dict[str, list[str]]:
        records = self._shard.retrieve(ids, [SNAPSHOTS], False)  # both flags required despite the stub
        return {str(r.id): list(r.payload.get(SNAPSHOTS) or []) for r in records}

    def _insert(self, points: list[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        E = self._E
        self._shard.update(E.UpdateOperation.upsert_points(
            [E.Point(id=pid, vector=vec, payload=payload) for pid, vec, payload in points],
            update_mode=E.UpdateMode.InsertOnly,
        ))

    def _set_snapshots(self, ids: list[str], snapshots: list[str]) -> None:
        self._shard.update(self._E.UpdateOperation.set_payload(ids, {SNAPSHOTS: snapshots}))

    def _delete(self, ids: list[str]) -> None:
        self._shard.update(self._E.UpdateOperation.delete_points(ids))

    def _scroll(self, repo: str, snapshot: str) -> Iterator[tuple[str, list[str]]]:
        E = self._E
        offset = None
        while True:
            records, offset = self._shard.scroll(E.ScrollRequest(
                offset=offset, limit=SCROLL_PAGE, filter=self._filter(repo, snapshot),
                with_payload=[SNAPSHOTS], with_vector=False,
            ))
            for r in records:
                yield str(r.id), list(r.payload.get(SNAPSHOTS) or [])
            if offset is None:
                return

    def _query(self, vector: np.ndarray, repo: str, snapshot: str, limit: int) -> list[tuple[str, float, dict]]:
        E = self._E
        found = self._shard.query(E.QueryRequest(
            query=E.Query.Nearest(vector), limit=limit, filter=self._filter(repo, snapshot),
            with_payload=True, with_vector=False, params=self._exact,
        ))
        return [(str(p.id), p.score, p.payload or {}) for p in found]

    def _count(self, repo: str | None, snapshot: str | None) -> int:
        return self._shard.count(self._E.CountRequest(exact=True, filter=self._filter(repo, snapshot)))

    def _close(self) -> None:
        if self._shard is not None:
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
        self._where = url or "the given Qdrant client"
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
                raise SpiderError(
                    f"the Qdrant server at {self._where} refused the API key (HTTP {exc.status_code}); "
                    "check QDRANT_API_KEY"
                ) from None
            raise SpiderError(
                f"the Qdrant server at {self._where} answered HTTP {exc.status_code}: "
                f"{_one_line(exc.content.decode(errors='replace'))[:300]}"
            ) from None
        except ResponseHandlingException as exc:
            raise SpiderError(
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
                    )
                except UnexpectedResponse as exc:
                    if exc.status_code != 409:  # 409: another worker created it first
                        raise
            params = self._client.get_collection(self.collection).config.params.vectors
            if params.size != self.dim or params.distance != M.Distance.COSINE:
                raise SpiderError(
                    f"Qdrant collection {self.collection} at {self._where} holds vectors of size {params.size} "
                    f"({params.distance}), not {self.dim} (Cosine)"
                )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # local mode: "Payload indexes have no effect"
                for field in INDEXED_FIELDS:
                    self._client.create_payload_index(
                        self.collection, field_name=field, field_schema=M.PayloadSchemaType.KEYWORD, wait=True,
                    )

    def _filter(self, repo: str | None, snapshot: str | None):
        M = self._M
        must = [M.FieldCondition(key=key, match=M.MatchValue(value=value))
                for key, value in ((REPO, repo), (SNAPSHOTS, snapshot)) if value is not None]
        return M.Filter(must=must) if must else None

    def _retrieve(self, ids: list[str]) -> dict[str, list[str]]:
        with self._errors():
            records = self._client.retrieve(self.collection, ids=ids, with_payload=[SNAPSHOTS], with_vectors=False)
        return {str(r.id): list((r.payload or {}).get(SNAPSHOTS) or []) for r in records}

    def _insert(self, points: list[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        M = self._M
        with self._errors():
            self._client.upsert(
                self.collection,
                points=[M.PointStruct(id=pid, vector=vec.tolist(), payload=payload) for pid, vec, payload in points],
                update_mode=M.UpdateMode.INSERT_ONLY, wait=True,
            )

    def _set_snapshots(self, ids: list[str], snapshots: list[str]) -> None:
        with self._errors():
            self._client.set_payload(self.collection, payload={SNAPSHOTS: snapshots}, points=ids, wait=True)

    def _delete(self, ids: list[str]) -> None:
        with self._errors():
            self._client.delete(self.collection, points_selector=self._M.PointIdsList(points=ids), wait=True)

    def _scroll(self, repo: str, snapshot: str) -> Iterator[tuple[str, list[str]]]:
        offset = None
        while True:
            with self._errors():
                records, offset = self._client.scroll(
                    self.collection, scroll_filter=self._filter(repo, snapshot), limit=SCROLL_PAGE, offset=offset,
                    with_payload=[SNAPSHOTS], with_vectors=False,
                )
            for r in records:
                yield str(r.id), list((r.payload or {}).get(SNAPSHOTS) or [])
            if offset is None:
                return

    def _query(self, vector: np.ndarray, repo: str, snapshot: str, limit: int) -> list[tuple[str, float, dict]]:
        with self._errors(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # local mode: "search_params are not supported" (it is exact anyway)
            found = self._client.query_points(
                self.collection, query=vector.tolist(), limit=limit, query_filter=self._filter(repo, snapshot),
                search_params=self._M.SearchParams(exact=True), with_payload=True, with_vectors=False,
            ).points
        return [(str(p.id), p.score, p.payload or {}) for p in found]

    def _count(self, repo: str | None, snapshot: str | None) -> int:
        with self._errors():
            return self._client.count(self.collection, count_filter=self._filter(repo, snapshot), exact=True).count

    def _close(self) -> None:
        if self._owns and self._client is not None:
            self._client.close()
        self._client = None


def open_vector_store(collection: str, dim: int) -> VectorStore:
    """The Qdrant server named by QDRANT_URL (and QDRANT_API_KEY) if set, else the local Edge shard
    SPIDER_HOME/vectors/<collection>/."""
    url = os.environ.get("QDRANT_URL")
    if url:
        return QdrantServerStore(collection, dim, url=url, api_key=os.environ.get("QDRANT_API_KEY"))
    return EdgeVectorStore(spider_home() / "vectors" / collection, dim)


__all__ = [
    "EdgeVectorStore", "Hit", "Point", "QdrantServerStore", "SPIDER_NAMESPACE", "VectorStore",
    "collection_name", "open_vector_store", "order_hits", "point_id",
]
