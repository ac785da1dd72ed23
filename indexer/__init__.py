"""spider's indexer: a git repository's commit -> its code graph in Neo4j and its functions' vectors in Qdrant.

The public API is what `__all__` names; everything else is reached through the sub-packages, one per stage of
the pipeline (source, parse, languages, resolve, graph, vectors, pipeline, distributed, cli).
"""

from spider.core.errors import ConfigurationError, InvalidInput, NotFound, ServiceUnavailable, SpiderError
from spider.core.settings import Settings
from spider.indexer.api import Stores, index_repository, open_stores
from spider.indexer.pipeline.report import IndexReport

__all__ = [
    "ConfigurationError",
    "IndexReport",
    "InvalidInput",
    "NotFound",
    "ServiceUnavailable",
    "Settings",
    "SpiderError",
    "Stores",
    "index_repository",
    "open_stores",
]
