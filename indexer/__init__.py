"""spider's indexer: a git repository's commit -> its code graph in Neo4j and its functions' vectors in Qdrant.

The public API is what `__all__` names; everything else is reached through the sub-packages, one per stage of
the pipeline (source, parse, languages, resolve, graph, models, vectors, pipeline, distributed); the error tree is
`spider.core.errors`'s, all of it exported here.
"""

from spider.core import errors
from spider.core.errors import *  # noqa: F403  # the whole error tree is public
from spider.core.settings import Settings
from spider.indexer.api import Stores, index_repository, open_stores
from spider.indexer.pipeline.report import IndexReport

__all__ = [*errors.__all__, "IndexReport", "Settings", "Stores", "index_repository", "open_stores"]
