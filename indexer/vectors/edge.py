"""The Qdrant Edge adapter of the vector store port: one embedded shard directory per collection under
SPIDER_HOME/vectors/, the single-machine default. Single-process: the shard's WAL is locked by whoever opened it."""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from spider.core.cache_files import write_atomically
from spider.core.errors import ConfigurationError, CorruptStore, OutOfSpace, ServiceUnavailable, StoreBusy
from spider.core.terminal import squeezed
from spider.indexer.disk_space import allocated_bytes, free_bytes, hole_bytes, mib, reading_holes_takes_space
from spider.indexer.vectors.edge_panics import PanicSafeShard
from spider.indexer.vectors.store import (
    CONTENT_HASH,
    EDGE_HEADROOM,
    EDGE_LOCK_WAIT,
    EDGE_POINT_BYTES_FIXED,
    EDGE_POINT_BYTES_PER_DIM,
    EDGE_REOPEN_BYTES,
    HIT_FIELDS,
    HNSW_EF_CONSTRUCT,
    HNSW_M,
    LEGACY_SNAPSHOTS,
    REPO,
    SCROLL_PAGE,
    STORE_ID_FILE,
    VectorStore,
    counted_vectors,
)


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
                    f"cannot open the local vector store {self.directory}: {squeezed(message)}"
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
        self._ensure_space(EDGE_HEADROOM + self._space_to_insert(len(points)), f"storing {counted_vectors(len(points))}")
        self._shard.update(E.UpdateOperation.upsert_points(
            [E.Point(id=pid, vector=vec, payload=payload) for pid, vec, payload in points],
            update_mode=E.UpdateMode.InsertOnly,
        ))

    def _delete(self, ids: list[str]) -> None:
        self._ensure_space(EDGE_HEADROOM, f"deleting {counted_vectors(len(ids))}")
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
                           f"storing and indexing {counted_vectors(points)}")

    def _build_index(self) -> None:
        self._ensure_space(EDGE_HEADROOM + self._unindexed_bytes(), "indexing its vectors")
        self._shard.optimize()  # Edge has no background optimizer; below its indexing threshold this is a no-op

    def _close(self) -> None:
        if self._shard is not None:
            if free_bytes(self.directory) >= EDGE_HEADROOM:  # else its WAL keeps every update for the next open
                self._shard.flush()
            self._shard.close()
            self._shard = None


def _hnsw_indexed(segment: Path) -> bool:
    """Whether an Edge segment's vectors have an HNSW index, by its segment.json."""
    try:
        vectors = json.loads((segment / "segment.json").read_text())["config"]["vector_data"].values()
        return all(vector["index"]["type"] == "hnsw" for vector in vectors)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
