"""Incremental indexing equals a full rebuild: node for node, relationship for relationship, vector for vector.

The property test generates small Python, JavaScript, Java, Go and Rust repositories (modules with functions,
classes, bases, imports and calls by bare name, from a small pool of names so that edits collide and re-resolve other
files) and random edit sequences (add / remove / rename functions, change calls, imports and bases, move, add and
delete modules, move a Rust module between foo.rs and foo/mod.rs). Each commit is indexed incrementally from the previous one, then rebuilt in full; the two
snapshots must be identical.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spider.indexer.graph.snapshot_diff import diff_contents, read_contents
from spider.indexer.models.embedding import open_embedder
from spider.indexer.pipeline.index import index_repository
from spider.indexer.vectors.open_store import open_vector_store
from spider.indexer.vectors.store import WINDOWS_PER_FUNCTION
from spider.query.retrieve.dense import snapshot_members

from tests.fixtures.damaged_files import garbage, truncated
from tests.fixtures.generated_repos import edit, render, repos
from tests.fixtures.gitrepo import git, make_repo
from tests.integration.helpers import invoke_spider, one_line_error, one_window_per_function, succeeded


def commit(root: Path, files: dict[str, str]) -> str:
    for child in root.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    return make_repo(root, files)[1]


def vectors_of(store, repo: str, snapshot: str, embedder) -> dict[str, tuple[str, float]]:
    """Every point of the snapshot (by content hash): its node id and its score against a fixed probe vector."""
    probe = np.random.default_rng(7).standard_normal(embedder.dim)
    with open_vector_store(embedder.name, embedder.dim) as vectors:
        hits = vectors.search(probe, repo, limit=10_000, members=snapshot_members(store, repo, snapshot))
    return {h.content_hash: (h.node_id, round(h.score, 6)) for h in hits}


def assert_incremental_equals_full(store, root: Path, repo: str, sha: str, embedder) -> dict:
    """Index `sha` incrementally, then rebuild it in full: same graph. Its graph and vectors must also equal those
    of a full index under another repository name, which has no head to write over and whose points (keyed by
    repository) are all embedded afresh."""
    report = index_repository(store, str(root), repo=repo, rev=sha)
    incremental = read_contents(store, repo, sha), vectors_of(store, repo, sha, embedder)
    index_repository(store, str(root), repo=repo, rev=sha, force=True, full=True)
    changes = diff_contents(read_contents(store, repo, sha), incremental[0])
    assert changes.is_empty(), changes
    fresh = f"{repo}-fresh"
    index_repository(store, str(root), repo=fresh, rev=sha, force=True, full=True)
    assert read_contents(store, fresh, sha).without_repo() == incremental[0].without_repo()
    assert incremental[1] == vectors_of(store, fresh, sha, embedder)
    assert len(incremental[1]) == sum(1 for label, _ in incremental[0].nodes if label == "Function")
    return report.stats()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(data=st.data())
def test_incremental_index_equals_a_full_rebuild_over_random_edit_sequences(data, tmp_path_factory, store,
                                                                           test_embedding_model):
    embedder = open_embedder(test_embedding_model)
    root = tmp_path_factory.mktemp("generated")
    repo_name = f"test/incr-{uuid.uuid4().hex[:10]}"  # not the folder's name: the next session's store has it
    state = data.draw(repos())
    first = commit(root, render(state))
    index_repository(store, str(root), repo=repo_name, rev=first)
    written = {first: read_contents(store, repo_name, first)}
    for _ in range(data.draw(st.integers(2, 4))):
        for _ in range(data.draw(st.integers(1, 3))):
            edit(data.draw, state)
        sha = commit(root, render(state))
        stats = assert_incremental_equals_full(store, root, repo_name, sha, embedder)
        assert stats["incremental"] is None or stats["incremental"]["base"] != sha
        written[sha] = read_contents(store, repo_name, sha)
    for sha, contents in written.items():  # every later write left each earlier snapshot's graph as it was
        assert read_contents(store, repo_name, sha) == contents, sha


def test_a_one_file_change_reparses_one_file_copies_the_rest_and_embeds_only_changed_code(
        tmp_path, store, repo_name, test_embedding_model):
    files = {"pkg/a.py": "def one():\n    return two()\n\ndef two():\n    return 2\n",
             "pkg/b.py": "from pkg.a import one\n\ndef three():\n    return one()\n",
             "web/c.js": "export function four() { return 4; }\n"}
    root, first = make_repo(tmp_path / "repo", files)
    index_repository(store, str(root), repo=repo_name, rev=first)
    _, second = make_repo(root, {"pkg/a.py": files["pkg/a.py"].replace("return 2", "return 22")}, "edit two")

    report = index_repository(store, str(root), repo=repo_name, rev=second)

    assert report.incremental.to_json() == {"base": first, "files_changed": 1, "files_reparsed": 1}
    v = report.versions  # the file and two() get new versions, and so do the relationships that touch them
    assert (v.seq, v.head, v.nodes_closed, v.nodes_created) == (2, first, 2, 2)
    assert v.relationships_closed == v.relationships_created == 4  # pkg->a.py, a.py->one, a.py->two, one->two
    assert (report.embedding.embedded, report.embedding.reused) == (1, 3)  # two() changed; one() kept its code
    assert report.stats()["nodes"] == {"Directory": 3, "File": 3, "Function": 4}
    changes = diff_contents(read_contents(store, repo_name, first), read_contents(store, repo_name, second))
    assert changes.nodes_changed == [("File", "pkg/a.py"), ("Function", "pkg/a.py:two")]
    assert changes.counts()["nodes_added"] == changes.counts()["edges_added"] == 0


def test_a_long_function_gets_a_point_per_window_and_a_snapshot_embedded_with_fewer_gets_the_rest(
        tmp_path, store, repo_name, test_embedding_model, monkeypatch):
    body = "".join(f"    total = total + index * {i}\n" for i in range(200))  # ~2,400 tokens: several windows
    root, sha = make_repo(tmp_path / "repo", {"big.py": f"def big(total, index):\n{body}    return total\n",
                                              "small.py": "def small():\n    return 1\n"})
    embedder = open_embedder(test_embedding_model)
    windows = len(embedder.function_windows("big.py:big", f"def big(total, index):\n{body}    return total\n",
                                            WINDOWS_PER_FUNCTION))
    assert windows == WINDOWS_PER_FUNCTION
    with one_window_per_function(monkeypatch):
        before = index_repository(store, str(root), repo=repo_name, rev=sha)
    assert (before.embedding.windows, before.embedding.embedded, before.embedding.later_windows) == (1, 2, 0)

    upgraded = index_repository(store, str(root), repo=repo_name, rev=sha)

    assert not upgraded.already_indexed
    assert (upgraded.embedding.windows, upgraded.embedding.embedded, upgraded.embedding.reused,
            upgraded.embedding.later_windows) == (WINDOWS_PER_FUNCTION, 0, 2, windows - 1)
    with open_vector_store(embedder.name, embedder.dim) as vectors:
        assert vectors.count(repo_name) == 1 + windows
    again = index_repository(store, str(root), repo=repo_name, rev=sha)
    assert again.already_indexed and again.embedding.later_windows == windows - 1  # as recorded: nothing new


def test_a_store_holding_first_windows_alone_gets_the_rest_when_the_snapshot_is_indexed_there(
        tmp_path, store, repo_name, spider_home, test_embedding_model, monkeypatch):
    code = "def big(total, index):\n" + "".join(f"    total = total + index * {i}\n" for i in range(200)) + \
        "    return total\n"
    root, sha = make_repo(tmp_path / "repo", {"big.py": code, "small.py": "def small():\n    return 1\n"})
    embedder = open_embedder(test_embedding_model)
    windows = len(embedder.function_windows("big.py:big", code, WINDOWS_PER_FUNCTION))
    b = tmp_path / "b"  # machine B: its own SPIDER_HOME, so its own vector store, on the session's Neo4j
    shutil.copytree(spider_home / "models", b / "models")
    with one_window_per_function(monkeypatch) as older:  # B's spider embedded the first window alone
        older.setenv("SPIDER_HOME", str(b))
        older.delenv("QDRANT_URL", raising=False)
        index_repository(store, str(root), repo=repo_name, rev=sha)
    assert index_repository(store, str(root), repo=repo_name, rev=sha).embedding.stores  # A: every window, A's
    monkeypatch.setenv("SPIDER_HOME", str(b))
    monkeypatch.delenv("QDRANT_URL", raising=False)

    on_b = index_repository(store, str(root), repo=repo_name, rev=sha)  # B holds every first window: not enough

    assert not on_b.already_indexed
    assert (on_b.embedding.embedded, on_b.embedding.later_windows) == (0, windows - 1)
    with open_vector_store(embedder.name, embedder.dim) as vectors:
        assert vectors.count(repo_name) == 1 + windows
    again = index_repository(store, str(root), repo=repo_name, rev=sha)
    assert again.already_indexed and len(again.embedding.stores) == 2  # recorded in A and in B


def test_a_base_written_by_another_graph_format_is_not_used(tmp_path, store, repo_name, monkeypatch):
    root, first = make_repo(tmp_path / "repo", {"a.py": "def one():\n    return 1\n"})
    index_repository(store, str(root), repo=repo_name, rev=first, embed=False)
    _, second = make_repo(root, {"b.py": "def two():\n    return 2\n"}, "add b")
    monkeypatch.setattr("spider.indexer.pipeline.base_snapshot.graph_format", lambda: "another-spider-version")

    report = index_repository(store, str(root), repo=repo_name, rev=second, embed=False)

    assert report.incremental is None and report.nodes["Function"] == 2


def test_a_cold_parse_cache_still_gives_the_full_rebuild(tmp_path, store, repo_name, monkeypatch, test_embedding_model):
    files = {"a.py": "def one():\n    return two()\n", "b.py": "def two():\n    return 2\n"}
    root, first = make_repo(tmp_path / "repo", files)
    index_repository(store, str(root), repo=repo_name, rev=first)
    _, second = make_repo(root, {"b.py": "def two():\n    return 3\n"}, "edit b")
    monkeypatch.setenv("SPIDER_PARSE_CACHE", str(tmp_path / "empty-cache.sqlite3"))

    stats = assert_incremental_equals_full(store, root, repo_name, second, open_embedder(test_embedding_model))

    assert stats["incremental"]["files_reparsed"] == 2  # a.py was not in this cache: parsed, written, not copied


@pytest.mark.parametrize("damage", [garbage, truncated])
def test_a_corrupt_parse_cache_is_rebuilt_and_the_run_says_so_once(tmp_path, repo_name, monkeypatch, damage):
    cache = tmp_path / "parse-cache.sqlite3"
    monkeypatch.setenv("SPIDER_PARSE_CACHE", str(cache))
    root, _ = make_repo(tmp_path / "repo", {f"m{i}.py": f"def f{i}():\n    return {i}\n" * 20 for i in range(40)})
    index = ("index", root, "--repo", repo_name, "--no-embed", "--json")
    succeeded(invoke_spider(*index))
    damage(cache)

    make_repo(root, {"m0.py": "def f0():\n    return -1\n"}, "edit m0")
    rebuilt = invoke_spider(*index)
    make_repo(root, {"m1.py": "def f1():\n    return -1\n"}, "edit m1")
    healthy = invoke_spider(*index)

    assert rebuilt.stderr.splitlines() == [f"spider: warning: the parse cache at {cache} was corrupt: rebuilt"]
    assert json.loads(succeeded(rebuilt))["incremental"]["files_reparsed"] == 40  # the rebuilt cache held nothing
    assert healthy.stderr == ""
    assert json.loads(succeeded(healthy))["incremental"]["files_reparsed"] == 1


def test_snapshots_diff_lists_what_a_commit_changed(tmp_path, store, repo_name):
    root, first = make_repo(tmp_path / "repo", {"a.py": "def one():\n    return 1\n", "b.py": "def three():\n    pass\n"})
    _, second = make_repo(root, {"a.py": "def one():\n    return 1\n\ndef two():\n    return one()\n"}, "add two")
    index_repository(store, str(root), repo=repo_name, rev=first, embed=False)
    summary = succeeded(invoke_spider("index", root, "--repo", repo_name, "--rev", second, "--no-embed"))
    assert f"incremental from {first[:12]}: 1 file changed; 1 read by the parser" in summary
    assert f"written over {first[:12]} as snapshot #2: 2 node and 4 relationship versions created, 1 and 2 ended" in summary

    output = succeeded(invoke_spider("snapshots", "diff", repo_name, first[:8], second[:8]))

    assert "nodes added: 1" in output and "Function a.py:two" in output
    assert "a.py:two INVOKES a.py:one" in output and "nodes changed: 1" in output  # the File's code
    assert "(identical graphs)" in succeeded(invoke_spider("snapshots", "diff", repo_name, second[:8], second[:8]))
    assert "no complete snapshot" in one_line_error(invoke_spider("snapshots", "diff", repo_name, first[:8], "0000000"))


def test_functions_copied_from_a_base_without_vectors_are_embedded_from_the_graphs_code(
        tmp_path, store, repo_name, test_embedding_model):
    files = {"a.py": "def one():\n    return 1\n", "b.py": "def two():\n    return 2\n"}
    root, first = make_repo(tmp_path / "repo", files)
    index_repository(store, str(root), repo=repo_name, rev=first, embed=False)
    _, second = make_repo(root, {"b.py": "def two():\n    return 3\n"}, "edit b")

    stats = assert_incremental_equals_full(store, root, repo_name, second, open_embedder(test_embedding_model))

    assert stats["incremental"]["files_reparsed"] == 1
    assert (stats["embedding"]["embedded"], stats["embedding"]["reused"]) == (2, 0)  # one() came from the graph


def test_the_parent_is_a_base_candidate_even_when_newer_snapshots_were_indexed_since(tmp_path, store, repo_name):
    files = {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(6)}
    root, parent = make_repo(tmp_path / "repo", files)
    index_repository(store, str(root), repo=repo_name, rev=parent, embed=False)
    git(root, "checkout", "-q", "-b", "rewrite")
    for round_ in range(5):  # five newer snapshots, each far from the parent
        make_repo(root, {path: f"def g{round_}():\n    return 0\n" for path in files}, f"rewrite {round_}")
        index_repository(store, str(root), repo=repo_name, embed=False)
    git(root, "checkout", "-q", "main")
    _, child = make_repo(root, {"m0.py": "def f0():\n    return 100\n"}, "one-line change")

    report = index_repository(store, str(root), repo=repo_name, rev=child, embed=False)

    assert report.incremental.base == parent and report.incremental.files_changed == 1
