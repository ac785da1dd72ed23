"""The Qdrant server adapter of the vector store port, through qdrant-client (QDRANT_URL, QDRANT_API_KEY). Given an
existing `QdrantClient`, it also runs on qdrant-client's local mode, which is how the tests stand in for a server."""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from spider.core.errors import ConfigurationError, ServiceUnavailable
from spider.core.redact import public_url
from spider.core.terminal import squeezed
from spider.indexer.vectors.store import (
    CONTENT_HASH,
    HIT_FIELDS,
    HNSW_EF_CONSTRUCT,
    HNSW_M,
    REPO,
    SCROLL_PAGE,
    VectorStore,
)


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
                f"{squeezed(exc.content.decode(errors='replace'))[:300]}"
            ) from None
        except ResponseHandlingException as exc:
            raise ServiceUnavailable(
                f"cannot reach the Qdrant server at {self._where} ({squeezed(exc.source or exc)}); "
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

    def _existing(self, repo: str, ids: list[str]) -> set[str]:
        with self._errors():
            records = self._client.retrieve(self.collection, ids=ids, with_payload=False, with_vectors=False)
        return {str(r.id) for r in records}

    def _insert(self, repo: str, points: list[tuple[str, np.ndarray, dict[str, Any]]]) -> None:
        M = self._M
        with self._errors():
            self._client.upsert(
                self.collection,
                points=[M.PointStruct(id=pid, vector=vec.tolist(), payload=payload) for pid, vec, payload in points],
                update_mode=M.UpdateMode.INSERT_ONLY, wait=True,
            )

    def _delete(self, repo: str, ids: list[str]) -> None:
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

    def _reserve(self, repo: str, points: int) -> None:
        """Nothing to check here: a Qdrant server watches its own disk."""

    def _build_index(self, repo: str) -> None:
        """Nothing to do: a Qdrant server indexes new points in the background."""

    def _close(self) -> None:
        if self._owns and self._client is not None:
            self._client.close()
        self._client = None
