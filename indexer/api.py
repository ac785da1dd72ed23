"""The indexing half of spider's Python API: open the stores a deployment uses, index a repository into them.

The CLI (`spider index`) and the Celery workers run the same pipeline; this is the door for a Python program. It
reads the environment only where `open_stores` is given no settings; what is opened after that (the graph, the
vector store, the embedding model, the parse cache, the selectors of `spider.query.localize`) follows the
`Settings` the stores carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from spider.core.redact import mask_secrets_of
from spider.core.settings import Settings
from spider.indexer.graph import neo4j_local
from spider.indexer.graph.store import GraphStore
from spider.indexer.pipeline import index
from spider.indexer.pipeline.report import IndexReport


@dataclass
class Stores:
    """Where a deployment keeps its index: the code graph (Neo4j), and the settings that say where everything else
    lives and which services to use: the vectors (Qdrant Edge under `settings.home`, or the server
    `settings.qdrant` names), the embedding models, the parse cache, the selectors. Vector collections are per
    embedding model, so they are opened when a model is known, by the call that needs them, from these settings."""

    graph: GraphStore
    settings: Settings

    def close(self) -> None:
        self.graph.close()

    def __enter__(self) -> Stores:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def open_stores(settings: Settings | None = None) -> Stores:
    """The stores `settings` name (default: read from the environment now, the only read of it on this path).
    With no Neo4j named (NEO4J_URI), this starts the local Neo4j under `settings.home` if it is not running, as
    the CLI does. The secrets the settings hold are masked in everything this process prints or logs from now on."""
    settings = settings if settings is not None else Settings.from_env()
    mask_secrets_of(settings)
    return Stores(neo4j_local.open_graph(settings), settings)


def index_repository(stores: Stores, path: str | Path, *, repo: str | None = None, rev: str | None = None,
                     model: str | None = None, embed: bool = True, full: bool = False,
                     force: bool = False) -> IndexReport:
    """Index the commit `rev` (default HEAD) of the git repository at `path` (bare or not) as `repo` (default:
    owner/name of its origin remote, else the directory's name): its graph, then its functions' vectors with
    `model` (default: the stores' settings' `embed_model`, SPIDER_EMBED_MODEL, else all-MiniLM-L6-v2) unless
    `embed` is false, into the vector store and through the parse cache the stores' settings name. Incremental
    against the closest indexed snapshot of the repository unless `full`; a commit already indexed is not indexed
    again unless `force`. Returns what `spider index --json` prints."""
    return index.index_repository(stores.graph, str(path), repo=repo, rev=rev, force=force, embed=embed,
                                  model=model, full=full, settings=stores.settings)
