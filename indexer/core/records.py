"""The graph's own records, shared by every stage that builds, writes, diffs or reads it: a node and a relationship
as written to Neo4j, a snapshot's whole graph, and what embedding a snapshot did (as its Snapshot node records it).
Free of the machinery that makes them, so the graph side reads them back without importing earlier stages."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any

from spider.core.schema import Label, Rel, Resolution


def entity_id(path: str, qualname: str) -> str:
    return f"{path}:{qualname}"


def content_hash(node_id: str, code: str) -> str:
    """Hash of what a node's embedding is made of (its id line and code): equal hash, equal vector."""
    return hashlib.sha256(f"{node_id}\n{code}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class GraphNode:
    """A node as written to Neo4j (repo and snapshot are added by the writer)."""

    label: Label
    id: str
    name: str
    path: str
    language: str | None = None  # None for directories
    kind: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    code: str | None = None
    content_hash: str | None = None


@dataclass(frozen=True, slots=True)
class GraphEdge:
    type: Rel
    src: str
    dst: str
    resolution: Resolution | None = None  # None for CONTAINS


ROOT_DIRECTORY = "."  # id of the repository's root Directory node


@dataclass
class CodeGraph:
    nodes: list[GraphNode] = field(default_factory=list)  # the nodes to write
    edges: list[GraphEdge] = field(default_factory=list)  # every edge of the snapshot
    labels: dict[str, Label] = field(default_factory=dict)  # every node id of the snapshot -> its label
    copied: set[str] = field(default_factory=set)  # files whose nodes are the base snapshot's (built without code)
    copied_functions: list[GraphNode] = field(default_factory=list)  # their functions, without code


# What embedding a snapshot did: which model embedded it, into which vector stores, and how much was embedded or
# reused.
@dataclass(frozen=True)
class EmbedStats:
    model: str
    dim: int
    functions: int = 0
    embedded: int = 0
    reused: int = 0
    seconds: float = 0.0
    index_seconds: float = 0.0
    # `VectorStore.store_id`s holding every vector; None: embedded before spider recorded the stores
    stores: tuple[str, ...] | None = None
    windows: int = 1  # windows of code embedded per function at most (1: before spider embedded more than one)
    later_windows: int = 0  # vectors embedded for windows after a function's first

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EmbedStats:
        stores = data.get("stores")
        return cls(**{**data, "stores": None if stores is None else tuple(stores)})

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if self.stores is None:
            del data["stores"]
        else:
            data["stores"] = list(self.stores)
        return data

    def recorded_in(self, store_id: str) -> bool:
        """Whether the store `store_id` holds the snapshot's vectors. One embedded before stores were recorded
        counts as embedded in any, as spider assumed then."""
        return self.stores is None or store_id in self.stores
