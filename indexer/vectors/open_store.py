"""Which vector store holds an embedding model's vectors: a Qdrant server's collection when one is configured, else
the local Qdrant Edge shard."""

from __future__ import annotations

from spider.core.settings import Settings, settings_or_env
from spider.indexer.vectors.edge import EdgeVectorStore
from spider.indexer.vectors.server import QdrantServerStore
from spider.indexer.vectors.store import VectorStore, collection_name


def open_vector_store(model_name: str, dim: int, settings: Settings | None = None) -> VectorStore:
    """The vectors of one embedding model: its collection (`collection_name`) on the Qdrant server `settings` name
    (QDRANT_URL, QDRANT_API_KEY) if any, else the local Edge shard `settings.home`/vectors/<collection>/.
    `settings`: the door's; None, for callers that have none yet (query/retrieve/first_stage.py, tests, bench
    scripts): the environment's."""
    settings = settings_or_env(settings)
    collection = collection_name(model_name, dim)
    qdrant = settings.qdrant
    if qdrant.url:
        return QdrantServerStore(collection, dim, url=qdrant.url, api_key=qdrant.api_key)
    return EdgeVectorStore(settings.home_dir() / "vectors" / collection, dim)
