"""What a new snapshot changes in a repository's versioned graph (`indexer.graph.versions`): the pure part.

A relationship joins two node *versions*, so when a node gets a new version every relationship touching it
gets one too, even if its endpoints' ids and its properties did not change.

A snapshot's digest (node id -> label and digest of its properties, relationship -> resolution) is small enough
to keep per snapshot, so the head's graph need not be read back from Neo4j to diff against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path

from spider.core.cache_files import load_tagged, save_tagged
from spider.core.records import CodeGraph, GraphNode
from spider.core.schema import Label

EdgeKey = tuple[str, str, str]  # (source id, relationship type, target id)


def node_digest(label: str, name: str, path: str, language: str | None, kind: str | None, start_line: int | None,
                end_line: int | None, content_hash: str | None) -> str:
    """Everything a node version holds but its id (the code through its content hash)."""
    fields = (label, name, path, language, kind, start_line, end_line, content_hash)
    return sha256(repr(fields).encode()).hexdigest()[:32]


def digest_of_node(node: GraphNode) -> str:
    return node_digest(node.label.value, node.name, node.path, node.language, node.kind, node.start_line,
                       node.end_line, node.content_hash)


@dataclass
class GraphDigest:
    """A snapshot's graph as the diff needs it: node id -> digest and label, relationship -> resolution."""

    nodes: dict[str, str] = field(default_factory=dict)
    labels: dict[str, Label] = field(default_factory=dict)
    edges: dict[EdgeKey, str | None] = field(default_factory=dict)

    def save(self, path: Path, write_id: str) -> None:
        """Keep it beside the snapshot's other caches, tagged with the write that made the graph it describes."""
        save_tagged(path, write_id, self)

    @staticmethod
    def load(path: Path, write_id: str) -> "GraphDigest | None":
        """The cached digest, if it describes the graph the write `write_id` made (not an earlier write of the same
        commit, since deleted)."""
        return load_tagged(path, write_id)


def digest_of(graph: CodeGraph, base: GraphDigest | None = None) -> GraphDigest:
    """The digest of `graph`. The nodes of its copied files (unchanged since the base snapshot, built without
    code) are the base's, so their digests come from `base`."""
    nodes = {node.id: digest_of_node(node) for node in graph.nodes}
    missing = graph.labels.keys() - nodes.keys()
    if missing:
        if base is None or not missing <= base.nodes.keys():
            raise ValueError(f"{len(missing)} nodes of copied files have no digest in the base snapshot")
        nodes.update((node_id, base.nodes[node_id]) for node_id in missing)
    edges = {(e.src, e.type.value, e.dst): e.resolution.value if e.resolution else None for e in graph.edges}
    return GraphDigest(nodes, dict(graph.labels), edges)


@dataclass(frozen=True)
class VersionDiff:
    """The writes that turn the head's versions into the new snapshot's (sorted, for deterministic batches)."""

    close_nodes: list[str]
    create_nodes: list[str]
    close_edges: list[EdgeKey]
    create_edges: list[EdgeKey]

    @property
    def writes(self) -> int:
        return len(self.close_nodes) + len(self.create_nodes) + len(self.close_edges) + len(self.create_edges)


def version_diff(head: GraphDigest, new: GraphDigest) -> VersionDiff:
    renewed = {node_id for node_id, digest in new.nodes.items() if head.nodes.get(node_id, digest) != digest}

    def rewritten(ours: dict[EdgeKey, str | None], theirs: dict[EdgeKey, str | None]) -> list[EdgeKey]:
        """Our relationships the other side lacks or resolves otherwise, and those touching a renewed node."""
        differ = {key for key, _ in ours.items() - theirs.items()}
        touching = {key for key in ours if key[0] in renewed or key[2] in renewed} if renewed else set()
        return sorted(differ | touching)

    return VersionDiff(
        close_nodes=sorted(renewed | (head.nodes.keys() - new.nodes.keys())),
        create_nodes=sorted(renewed | (new.nodes.keys() - head.nodes.keys())),
        close_edges=rewritten(head.edges, new.edges),
        create_edges=rewritten(new.edges, head.edges),
    )
