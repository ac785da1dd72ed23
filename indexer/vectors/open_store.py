"""Which vector store holds an embedding model's vectors: a Qdrant server's collection when one is configured, else
the local Qdrant Edge shard."""

from __future__ import annotations

from spider.core.settings import Settings, spider_home
from spider.indexer.vectors.edge import EdgeVectorStore
from spider.indexer.vectors.server import QdrantServerStore
from spider.indexer.vectors.store import VectorStore, collection_name


def open_vector_store(model_name: str, dim: int) -> VectorStore:
    """The vectors of one embedding model: its collection (`collection_name`) on the Qdrant server named by
    QDRANT_URL (and QDRANT_API_KEY) if set, else the local Edge shard SPIDER_HOME/vectors/<collection>/."""
    collection = collection_name(model_name, dim)
    qdrant = Settings.from_env().qdrant
    if qdrant.url:
        return QdrantServerStore(collection, dim, url=qdrant.url, api_key=qdrant.api_key)
    return EdgeVectorStore(spider_home() / "vectors" / collection, dim)
