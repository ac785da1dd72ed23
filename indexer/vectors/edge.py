"""The Qdrant Edge adapter of the vector store port, the single-machine default: one embedded shard per repository
and collection, in SPIDER_HOME/vectors/<collection>/repos/<repository>/.

Edge lets one process at a time open a shard. A shard is therefore held only while an operation uses it
(`edge_shards`): a query answers while another process indexes, between two of its batches, and the index runs of
two repositories never meet. What one shard per repository buys over one per collection: an index run's HNSW build
(Edge's optimize, which holds the shard and Python's GIL for its whole length, 16 s for 30,000 new points here)
stalls only its own repository's shard, and opening a shard reads one repository's segments, not the
organisation's. One writer per repository at a time: `writing` is a file lock beside its shard."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from spider.core.cache_files import write_atomically
from spider.core.errors import ConfigurationError, CorruptStore, OutOfSpace, ServiceUnavailable, StoreBusy
from spider.core.settings import path_name
from spider.core.terminal import squeezed
from spider.indexer.disk_space import allocated_bytes, free_bytes, hole_bytes, mib, reading_holes_takes_space
from spider.indexer.vectors.edge_panics import PanicSafeShard
from spider.indexer.vectors.edge_shards import holding, is_busy, lock_file
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

REPOS = "repos"  # the folder of the repositories' shards
LEGACY_FILES = ("temp_segments", "wal", "edge_config.json")  # a shard's, besides `segments`, at the collection's top
SPLITTING = ".split-segments"  # a legacy shard's segments, renamed once its points are in per-repository shards


class EdgeVectorStore(VectorStore):
    """The collection in `directory` (created on first use): one Qdrant Edge shard per repository, WAL on. Points
    are searched exactly until `build_index` (Edge's optimize) has put them in HNSW segments. Each shard keeps the
    multitenant layout it had when all repositories shared one (`repo` a tenant index, m = 0, payload_m = 32:
    one graph per repository), so searches rank as they did (bench/results/embed.md).

    A shard is opened per operation and shared by this process's threads (`edge_shards.holding`); one another
    process holds is waited for `lock_wait` seconds, then StoreBusy. Every engine call is a `PanicSafeShard`'s:
    where damaged files make the engine panic, opening or any later call raises CorruptStore. A collection written
    before one shard per repository (its shard at the top of `directory`) is split into them when first opened.
    """

    def __init__(self, directory: str | os.PathLike, dim: int, *, lock_wait: float = EDGE_LOCK_WAIT) -> None:
        import qdrant_edge as E

        self._E = E
        self.directory = Path(directory)
        self.collection = self.directory.name
        self.dim = dim
        self.lock_wait = lock_wait
        self._config = E.EdgeConfig(
            vectors=E.EdgeVectorParams(size=dim, distance=E.Distance.Cosine), wal_enabled=True,
            hnsw_config=E.HnswIndexConfig(m=0, payload_m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT,
                                          full_scan_threshold=10_000),
        )
        self.where = f"the local vector store {self.directory}"
        self.directory.mkdir(parents=True, exist_ok=True)
        self.store_id = self._own_id()
        if (self.directory / "segments").is_dir() or (self.directory / SPLITTING).is_dir():
            self._split_legacy_shard()

    def shard_directory(self, repo: str) -> Path:
        return self.directory / REPOS / path_name(repo)

    def _using(self, repo: str, create: bool = False) -> AbstractContextManager[object]:
        return self._holding(repo, create)

    @contextmanager
    def _holding(self, repo: str, create: bool = False) -> Iterator[Any]:
        """`repo`'s shard while the block runs (None: it has none, and not `create`)."""
        directory = self.shard_directory(repo)
        if not create and not directory.is_dir():
            yield None
            return
        with self._held(directory) as shard:
            yield shard

    def _held(self, directory: Path) -> AbstractContextManager[Any]:
        """The shard in `directory`, opened (made if need be) unless this process has it open (`edge_shards`)."""
        return holding(directory, lambda: self._open(directory), self._close_shard, self.lock_wait,
                       lambda: self._busy(directory))

    @contextmanager
    def writing(self, repo: str) -> Iterator[None]:
        """Be the one writer of `repo`'s vectors here until the block ends: a file lock beside its shard, which
        the system lets go when the process ends however it ends. Another writer (of this process too) waits
        `lock_wait` seconds, then StoreBusy."""
        busy = StoreBusy(f"another spider process is writing the vectors of {repo} into {self.where}; wait for it "
                         "to finish, then run again")
        lease = lock_file(self.directory / REPOS / f"{path_name(repo)}.lock", self.lock_wait, lambda: busy)
        try:
            yield
        finally:
            os.close(lease)

    def _busy(self, directory: Path) -> StoreBusy:
        return StoreBusy(f"the local vector store is in use by another spider process ({directory}); wait for it, "
                         "or set QDRANT_URL to use a Qdrant server")

    def _open(self, directory: Path) -> Any:
        """Open the shard in `directory`, made if need be with the tenant index on `repo` (an old shard's index
        upgraded to one). Raises what Edge raises for a shard another process holds."""
        E = self._E
        self._ensure_space(directory, self._space_to_open(directory), "opening it")
        directory.mkdir(parents=True, exist_ok=True)
        shards = PanicSafeShard(E.EdgeShard, directory, opening=True)
        segments = directory / "segments"
        try:
            opened = shards.load(str(directory), self._config) if segments.is_dir() and any(segments.iterdir()) \
                else shards.create(str(directory), self._config)
        except CorruptStore:
            raise
        except Exception as exc:  # qdrant_edge raises plain Exception; tell cases apart by message
            message = str(exc)
            if is_busy(exc):  # held, or being made, by another process: `holding` waits for it
                raise
            if "incompatible" in message:
                raise ConfigurationError(
                    f"the local vector store {directory} holds vectors of another size than {self.dim} "
                    "or another distance; delete that directory to rebuild it"
                ) from None
            raise ServiceUnavailable(f"cannot open the local vector store {directory}: {squeezed(message)}") from None
        shard = PanicSafeShard(opened, directory)  # a panic: CorruptStore
        try:
            schema = shard.info().payload_schema
            if LEGACY_SNAPSHOTS in schema:  # membership used to live in the payload: its index only slows opening
                shard.update(E.UpdateOperation.delete_field_index(LEGACY_SNAPSHOTS))
            index = schema.get(REPO)
            if not getattr(index and index.params, "is_tenant", False):  # a shard from before tenant indexing
                if index is not None:
                    shard.update(E.UpdateOperation.delete_field_index(REPO))
                shard.update(E.UpdateOperation.create_field_index(REPO, E.KeywordIndexParams(is_tenant=True)))
        except BaseException:
            shard.close()  # release the WAL lock
            raise
        return shard

    def _close_shard(self, shard: Any) -> None:
        if free_bytes(self.directory) >= EDGE_HEADROOM:  # else its WAL keeps every update for the next open
            shard.flush()
        shard.close()

    def _split_legacy_shard(self) -> None:
        """Move the points of the collection's one shard (a store written before one shard per repository) into
        per-repository shards, then remove its files; under a file lock, so a second process waits and finds it
        done. Interrupted, it starts again where the legacy shard still is: inserting a point a shard holds is a
        no-op, and the legacy files go only once every point is in its repository's shard."""
        E = self._E
        with open(self.directory / ".split.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if (self.directory / "segments").is_dir():
                moved: set[str] = set()
                with self._held(self.directory) as legacy:
                    self._ensure_space(self.directory, EDGE_HEADROOM + 2 * self._space_to_insert(
                        legacy.count(E.CountRequest(exact=True))), "moving it to one shard per repository")
                    offset = None
                    while True:
                        records, offset = legacy.scroll(E.ScrollRequest(offset=offset, limit=SCROLL_PAGE,
                                                                        with_payload=True, with_vector=True))
                        by_repo: dict[str, list] = defaultdict(list)
                        for r in records:
                            payload = {k: v for k, v in r.payload.items() if k != LEGACY_SNAPSHOTS}
                            by_repo[payload[REPO]].append(E.Point(id=str(r.id), vector=r.vector, payload=payload))
                        for repo, points in by_repo.items():
                            with self._holding(repo, create=True) as shard:
                                shard.update(E.UpdateOperation.upsert_points(points,
                                                                             update_mode=E.UpdateMode.InsertOnly))
                            moved.add(repo)
                        if offset is None:
                            break
                    for repo in sorted(moved):
                        self._build_index(repo)
                (self.directory / "segments").rename(self.directory / SPLITTING)  # no longer a legacy store
            for name in (*LEGACY_FILES, SPLITTING):
                path = self.directory / name
                if path.is_dir():
                    shutil.rmtree(path)
                elif path.exists():
                    path.unlink()

    def _ensure_space(self, directory: Path, needed: int, doing: str) -> None:
        """Raise OutOfSpace unless the disk of the shard in `directory` has `needed` bytes free: Edge grows
        memory-mapped files, and a write into one on a full disk kills the process (SIGBUS) instead of failing."""
        free = free_bytes(directory if directory.exists() else self.directory)
        if free < needed:
            raise OutOfSpace(f"{self.where} has {mib(free)} free, and {doing} needs about {mib(needed)}: "
                             "free space on its disk, then run again")

    def _space_to_open(self, directory: Path) -> int:
        """Loading a shard reads its mapped segment files ahead (all but the payload storage, which spider's
        shards keep cold: Edge's default); where reading a hole takes a page (tmpfs), that fills their holes."""
        segments = directory / "segments"
        if not segments.is_dir():
            return EDGE_HEADROOM  # a new shard
        fills = hole_bytes(segments, skip={"payload_storage"}) if reading_holes_takes_space(segments) else 0
        return EDGE_REOPEN_BYTES + fills

    def _space_to_insert(self, points: int) -> int:
        return points * (EDGE_POINT_BYTES_PER_DIM * self.dim + EDGE_POINT_BYTES_FIXED)

    def _unindexed_bytes(self, directory: Path) -> int:
        """What `build_index` may rewrite: the segments whose vectors have no HNSW index yet (Edge's optimizer
        writes an indexed copy of each before it drops it). A segment whose config cannot be read counts."""
        segments = directory / "segments"
        if not segments.is_dir():
            return 0
        return sum(allocated_bytes(segment) for segment in segments.iterdir()
                   if segment.is_dir() and not _hnsw_indexed(segment))

    def _own_id(self) -> str:
        """The id in the collection's directory, made when it is first opened: a store made again in its place
        (its directory deleted) is another store. Of two processes making it at once, the first to link its file
        in place wins, and both read that one."""
        path = self.directory / STORE_ID_FILE
        for _ in range(2):
            try:
                existing = path.read_bytes().decode("ascii", "replace").strip()  # garbage is no id, as none is
            except FileNotFoundError:
                existing = ""
            if re.fullmatch(r"[0-9a-f]{32}", existing):
                return existing
            made = uuid.uuid4().hex
            if existing:  # garbage: replaced
                write_atomically(path, made.encode())
                return made
            staged = path.with_name(f".{STORE_ID_FILE}.{made}")
            write_atomically(staged, made.encode())
            try:
                os.link(staged, path)
                return made
            except FileExistsError:
                continue  # another process made it first: read theirs
            finally:
                staged.unlink()
        raise ServiceUnavailable(f"cannot make the identity file of {self.where}")

    def _filter(self, repo: str | None):
        E = self._E
        return None if repo is None else E.Filter(must=[E.FieldCondition(key=REPO, match=E.MatchValue(repo))])

    def _existing(self, repo: str, ids: list[str]) -> set[str]:
        with self._holding(repo) as shard:
            if shard is None:
                return set()
            return {str(r.id) for r in shard.retrieve(ids, False, False)}  # both flags required despite the stub

    def _insert(self, repo: str, points: list[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        E = self._E
        directory = self.shard_directory(repo)
        self._ensure_space(directory, EDGE_HEADROOM + self._space_to_insert(len(points)),
                           f"storing {counted_vectors(len(points))}")
        with self._holding(repo, create=True) as shard:
            shard.update(E.UpdateOperation.upsert_points(
                [E.Point(id=pid, vector=vec, payload=payload) for pid, vec, payload in points],
                update_mode=E.UpdateMode.InsertOnly,
            ))

    def _delete(self, repo: str, ids: list[str]) -> None:
        self._ensure_space(self.shard_directory(repo), EDGE_HEADROOM, f"deleting {counted_vectors(len(ids))}")
        with self._holding(repo) as shard:
            if shard is not None:
                shard.update(self._E.UpdateOperation.delete_points(ids))  # type: ignore[arg-type]  # str ids are ids

    def _scroll(self, repo: str) -> Iterator[tuple[str, str]]:
        E = self._E
        with self._holding(repo) as shard:
            offset = None
            while shard is not None:
                records, offset = shard.scroll(E.ScrollRequest(
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
        with self._holding(repo) as shard:
            if shard is None:
                return []
            found = shard.query(E.QueryRequest(
                query=E.Query.Nearest(vector), limit=limit, filter=self._filter(repo),
                with_payload=HIT_FIELDS if payload else False, with_vector=False, params=E.SearchParams(hnsw_ef=ef),
            ))
        return [(p.score, p.id.int, p.payload if payload else None) for p in found]

    def _count(self, repo: str | None, exact: bool) -> int:
        if repo is None:
            return sum(self._count(name, exact) for name in self._repositories())
        with self._holding(repo) as shard:
            return 0 if shard is None else shard.count(self._E.CountRequest(exact=exact, filter=self._filter(repo)))

    def _repositories(self) -> list[str]:
        """The repositories with a shard here, by the payload of one of their points."""
        found = []
        for directory in sorted((self.directory / REPOS).glob("*/segments")):
            name = directory.parent.name
            with self._held(directory.parent) as shard:
                records, _ = shard.scroll(self._E.ScrollRequest(limit=1, with_payload=[REPO], with_vector=False))
            if records and path_name(records[0].payload[REPO]) == name:
                found.append(records[0].payload[REPO])
        return found

    def _reserve(self, repo: str, points: int) -> None:
        stored = self._space_to_insert(points)  # and again when indexed, with the points not indexed yet
        directory = self.shard_directory(repo)
        self._ensure_space(directory, EDGE_HEADROOM + 2 * stored + self._unindexed_bytes(directory),
                           f"storing and indexing {counted_vectors(points)}")

    def _build_index(self, repo: str) -> None:
        directory = self.shard_directory(repo)
        self._ensure_space(directory, EDGE_HEADROOM + self._unindexed_bytes(directory), "indexing its vectors")
        with self._holding(repo) as shard:
            if shard is not None:
                shard.optimize()  # Edge has no background optimizer; below its indexing threshold this is a no-op

    def _close(self) -> None:
        """Nothing is held between operations."""


def _hnsw_indexed(segment: Path) -> bool:
    """Whether an Edge segment's vectors have an HNSW index, by its segment.json."""
    try:
        vectors = json.loads((segment / "segment.json").read_text())["config"]["vector_data"].values()
        return all(vector["index"]["type"] == "hnsw" for vector in vectors)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
