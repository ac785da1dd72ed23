"""What differs between two snapshots' graphs: nodes (by label and id, all properties but the version bounds) and
relationships (by source, type and target, with their properties). Used by `spider snapshots diff` (what a
commit changed, structurally) and to check that incremental indexing equals a full rebuild."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spider.core.records import ROOT_DIRECTORY
from spider.core.schema import Label, Prop
from spider.indexer.graph.store import GraphStore

NodeKey = tuple[str, str]  # (label, id)
EdgeKey = tuple[str, str, str]  # (source id, type, target id)
VERSION_BOUNDS = (Prop.SINCE, Prop.UNTIL)  # where a version lies in the repository's history, not what it holds


@dataclass
class SnapshotContents:
    nodes: dict[NodeKey, dict[str, Any]]
    edges: dict[EdgeKey, dict[str, Any]]

    def without_repo(self) -> "SnapshotContents":
        """Comparable with the same commit indexed under another repository name: without the name, which the
        root directory carries too."""
        root = (Label.DIRECTORY.value, ROOT_DIRECTORY)
        return SnapshotContents(
            {key: {p: v for p, v in props.items() if p != Prop.REPO and (key != root or p != Prop.NAME)}
             for key, props in self.nodes.items()}, self.edges)


@dataclass
class SnapshotDiff:
    nodes_added: list[NodeKey] = field(default_factory=list)
    nodes_removed: list[NodeKey] = field(default_factory=list)
    nodes_changed: list[NodeKey] = field(default_factory=list)  # same label and id, other properties
    edges_added: list[EdgeKey] = field(default_factory=list)
    edges_removed: list[EdgeKey] = field(default_factory=list)
    edges_changed: list[EdgeKey] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not any(vars(self).values())

    def counts(self) -> dict[str, int]:
        return {name: len(keys) for name, keys in vars(self).items()}


def read_contents(store: GraphStore, repo: str, snapshot: str) -> SnapshotContents:
    nodes = {}
    for row in store.run_named("snapshot_nodes", repo=repo, snapshot=snapshot):
        props = dict(row["props"])
        for bound in VERSION_BOUNDS:
            props.pop(bound, None)
        nodes[(row["label"], row["id"])] = props
    edges: dict[EdgeKey, dict[str, Any]] = {}
    for row in store.run_named("snapshot_edges", repo=repo, snapshot=snapshot):
        key = (row["src"], row["type"], row["dst"])
        if key in edges:  # two relationships where the schema has one: a duplicate write
            raise ValueError(f"snapshot {snapshot[:12]} of {repo} holds {key} twice")
        edges[key] = {k: v for k, v in row["props"].items() if k not in VERSION_BOUNDS}
    return SnapshotContents(nodes, edges)


def _compare(old: dict, new: dict) -> tuple[list, list, list]:
    added = sorted(new.keys() - old.keys())
    removed = sorted(old.keys() - new.keys())
    changed = sorted(k for k in old.keys() & new.keys() if old[k] != new[k])
    return added, removed, changed


def diff_contents(old: SnapshotContents, new: SnapshotContents) -> SnapshotDiff:
    return SnapshotDiff(*_compare(old.nodes, new.nodes), *_compare(old.edges, new.edges))


def diff_snapshots(store: GraphStore, repo: str, old: str, new: str) -> tuple[str, str, SnapshotDiff]:
    """What changed in `repo`'s graph from the complete snapshot `old` to `new` (revisions or sha prefixes): their
    shas and the differences; what `spider snapshots diff` and the MCP tool `changed` report."""
    old_sha, new_sha = store.resolve_snapshot(repo, old), store.resolve_snapshot(repo, new)
    return old_sha, new_sha, diff_contents(read_contents(store, repo, old_sha), read_contents(store, repo, new_sha))
