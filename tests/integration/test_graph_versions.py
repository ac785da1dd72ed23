"""The versioned graph in the real Neo4j (branch versioned-graph, issue 6): writing each commit's diff over the
head keeps every earlier snapshot's view exactly its own graph, and truncating undoes the later ones."""

from __future__ import annotations

import pytest

from indexer.graph_diff import digest_of, version_diff
from indexer.graph_store import _node_props
from indexer.pipeline import IndexReport, graph_of, parse_all
from indexer.walk import open_commit, select_files
from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import FIXTURES

pytestmark = pytest.mark.integration


def graph_at(root, repo):
    commit = open_commit(str(root))
    selection = select_files(commit)
    return graph_of(IndexReport(repo, commit.sha, "HEAD"), selection, parse_all(commit, selection.files))


def expected(graph) -> tuple[set, set]:
    nodes = {(n.label.value, n.id, tuple(sorted(_node_props(n).items()))) for n in graph.nodes}
    edges = {(e.src, e.type.value, e.dst, e.resolution.value if e.resolution else None) for e in graph.edges}
    return nodes, edges


def view(store, repo, seq) -> tuple[set, set]:
    nodes, edges = store.version_view(repo, seq)
    drop = {"repo", "id", "since", "until"}
    return ({(label, i, tuple(sorted((k, v) for k, v in props.items() if k not in drop))) for label, i, props in nodes},
            {(s, t, d, props.get("resolution")) for s, t, d, props in edges})


def test_each_commits_view_is_its_graph_and_truncating_undoes_the_later_ones(tmp_path, store, repo_name):
    files = dict(FIXTURES["python"].files)
    root, _ = make_repo(tmp_path / "repo", files)
    edited = next(path for path, text in files.items() if "def " in text and path.endswith(".py"))
    graphs = [graph_at(root, repo_name)]
    make_repo(root, {edited: files[edited] + "\n\ndef added_helper():\n    return 1\n",
                     "shop/extra.py": "from shop import *\n\n\ndef extra():\n    return added_helper()\n"},
              message="edit one file, add one")
    graphs.append(graph_at(root, repo_name))
    removed = sorted(p for p in files if p != edited and p.endswith(".py"))[0]
    (root / removed).unlink()
    make_repo(root, {}, message="remove a file")
    graphs.append(graph_at(root, repo_name))

    store.ensure_schema()
    head = None
    writes = []
    for seq, graph in enumerate(graphs, start=1):
        digest = digest_of(graph)
        diff = version_diff(head or type(digest)(), digest)
        store.write_version(repo_name, seq, {n.id: n for n in graph.nodes}, graph.labels, digest.edges, diff)
        writes.append(diff.writes)
        head = digest
        for earlier in range(1, seq + 1):
            assert view(store, repo_name, earlier) == expected(graphs[earlier - 1]), (seq, earlier)
    assert writes[1] < writes[0] / 2 and writes[2] < writes[0]  # later commits write only what they change

    store.truncate_versions(repo_name, 1)

    assert view(store, repo_name, 1) == expected(graphs[0])
    assert view(store, repo_name, 3) == expected(graphs[0])  # nothing after 1 is left: 1's versions are open
