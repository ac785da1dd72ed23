"""version_diff against a reference versioned store: writing the diff of snapshot k over the head gives a view
at k equal to the new graph, leaves the view at k - 1 as it was, and writes nothing that did not change."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spider.core.records import CodeGraph, GraphEdge, GraphNode
from spider.core.schema import Label, Rel, Resolution
from spider.indexer.graph.version_diff import GraphDigest, digest_of, digest_of_node, version_diff

OPEN = float("inf")


class VersionedStore:
    """The reference: node versions (id, digest, since, until); relationship versions join node *versions*."""

    def __init__(self) -> None:
        self.nodes: list[dict] = []
        self.edges: list[dict] = []

    def _open_node(self, node_id: str) -> dict:
        (version,) = [n for n in self.nodes if n["id"] == node_id and n["until"] == OPEN]
        return version

    def write(self, seq: int, new: GraphDigest, diff) -> None:
        for key in diff.close_edges:
            (version,) = [e for e in self.edges if e["key"] == key and e["until"] == OPEN]
            version["until"] = seq
        for node_id in diff.close_nodes:
            self._open_node(node_id)["until"] = seq
        for node_id in diff.create_nodes:
            self.nodes.append({"id": node_id, "digest": new.nodes[node_id], "since": seq, "until": OPEN})
        for key in diff.create_edges:
            src, dst = self._open_node(key[0]), self._open_node(key[2])
            self.edges.append({"key": key, "res": new.edges[key], "src": src, "dst": dst, "since": seq, "until": OPEN})

    def view(self, seq: int) -> GraphDigest:
        valid = lambda v: v["since"] <= seq < v["until"]  # noqa: E731
        edges = [e for e in self.edges if valid(e)]
        assert all(valid(e["src"]) and valid(e["dst"]) for e in edges), "a relationship joins a version not in the view"
        nodes = [n for n in self.nodes if valid(n)]
        assert len({n["id"] for n in nodes}) == len(nodes) and len({e["key"] for e in edges}) == len(edges)
        return GraphDigest({n["id"]: n["digest"] for n in nodes}, edges={e["key"]: e["res"] for e in edges})


IDS = [f"n{i}" for i in range(8)]


@st.composite
def graphs(draw) -> GraphDigest:
    nodes = draw(st.dictionaries(st.sampled_from(IDS), st.sampled_from("abc"), min_size=1))
    ids = sorted(nodes)
    keys = st.tuples(st.sampled_from(ids), st.sampled_from(["CONTAINS", "INVOKES"]), st.sampled_from(ids))
    edges = draw(st.dictionaries(keys, st.sampled_from([None, "exact", "import"]), max_size=20))
    return GraphDigest(nodes, edges=edges)


@settings(max_examples=300, deadline=None)
@given(st.lists(graphs(), min_size=1, max_size=5))
def test_each_snapshots_view_is_its_graph_after_every_later_write(snapshots):
    store = VersionedStore()
    head = GraphDigest()
    for seq, new in enumerate(snapshots, start=1):
        diff = version_diff(head, new)
        store.write(seq, new, diff)
        head = new
        for earlier, graph in enumerate(snapshots[:seq], start=1):
            assert store.view(earlier) == graph


@settings(max_examples=300, deadline=None)
@given(graphs(), graphs())
def test_only_what_changed_is_written(head, new):
    diff = version_diff(head, new)
    renewed = {i for i in head.nodes.keys() & new.nodes.keys() if head.nodes[i] != new.nodes[i]}
    kept_nodes = {i for i in head.nodes.keys() & new.nodes.keys() if i not in renewed}
    assert not kept_nodes & (set(diff.close_nodes) | set(diff.create_nodes))
    kept_edges = {k for k in head.edges.keys() & new.edges.keys()
                  if head.edges[k] == new.edges[k] and k[0] not in renewed and k[2] not in renewed}
    assert not kept_edges & (set(diff.close_edges) | set(diff.create_edges))
    assert version_diff(new, new).writes == 0


def test_a_changed_node_renews_its_unchanged_relationships():
    head = GraphDigest({"f": "a", "g": "a", "h": "a"},
                       edges={("f", "INVOKES", "g"): "exact", ("g", "INVOKES", "h"): "exact"})
    new = GraphDigest({"f": "a", "g": "b", "h": "a"}, edges=dict(head.edges))

    diff = version_diff(head, new)

    assert (diff.close_nodes, diff.create_nodes) == (["g"], ["g"])
    assert diff.close_edges == diff.create_edges == [("f", "INVOKES", "g"), ("g", "INVOKES", "h")]


def _node(node_id: str, code: str) -> GraphNode:
    return GraphNode(Label.FUNCTION, node_id, node_id.split(":")[1], node_id.split(":")[0], "python", "function",
                     1, 1, code, f"hash-of-{code}")


def test_digest_of_takes_the_copied_files_nodes_from_the_base():
    kept, copied = _node("a.py:f", "def f(): g()"), _node("b.py:g", "def g(): pass")
    graph = CodeGraph(nodes=[kept], edges=[GraphEdge(Rel.INVOKES, kept.id, copied.id, Resolution.IMPORT)],
                      labels={kept.id: Label.FUNCTION, copied.id: Label.FUNCTION}, copied={"b.py"})
    base = GraphDigest({copied.id: digest_of_node(copied)})

    digest = digest_of(graph, base)

    assert digest.nodes == {kept.id: digest_of_node(kept), copied.id: digest_of_node(copied)}
    assert digest.labels == {kept.id: Label.FUNCTION, copied.id: Label.FUNCTION}
    assert digest.edges == {("a.py:f", "INVOKES", "b.py:g"): "import"}
    with pytest.raises(ValueError, match="no digest in the base"):
        digest_of(graph, GraphDigest())
    assert digest_of_node(_node("a.py:f", "def f(): h()")) != digest_of_node(kept)


def test_a_cached_digest_serves_only_the_write_it_was_made_by(tmp_path):
    digest = GraphDigest({"f": "a"}, {"f": Label.FUNCTION}, {("f", "INVOKES", "f"): "exact"})
    digest.save(tmp_path / "d.pickle", "write-1")

    assert GraphDigest.load(tmp_path / "d.pickle", "write-1") == digest
    assert GraphDigest.load(tmp_path / "d.pickle", "write-2") is None  # the commit was written again since
    assert GraphDigest.load(tmp_path / "missing.pickle", "write-1") is None
