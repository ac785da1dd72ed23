"""The versioned graph in the real Neo4j: each snapshot's view is exactly its own graph whatever is written or
deleted after it, no version outlives every snapshot that sees it, a dead writer's leftovers are undone, and
writers of one repository take turns."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest
from spider.core.errors import SpiderError
from spider.indexer.graph.snapshot_diff import read_contents
from spider.indexer.graph.store import GraphStore
from spider.indexer.graph.versions import delete_snapshot, hold_repository
from spider.indexer.pipeline import index as pipeline
from spider.indexer.pipeline.delete import delete_snapshot as delete_snapshot_and_vectors
from spider.indexer.pipeline.index import index_repository
from spider.indexer.vectors.store import VectorStore

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import FIXTURES

UNSEEN_VERSIONS = """
MATCH (n:Directory|File|Class|Function {repo: $repo})
WHERE NOT EXISTS { MATCH (s:Snapshot {repo: $repo}) WHERE n.since <= s.seq < n.until }
RETURN count(n) AS n
"""
VERSIONS = "MATCH (n:Directory|File|Class|Function {repo: $repo}) RETURN count(n) AS n"
WAITING_WRITERS = """
SHOW TRANSACTIONS YIELD parameters, status
WHERE parameters.repo = $repo AND status STARTS WITH 'Blocked'
RETURN count(*) AS n
"""  # the transactions of a repository's writers that wait on a lock (its Repository node's)


def count(store: GraphStore, query: str, repo: str) -> int:
    return store.read(query, {"repo": repo})[1][0][0]


def until_a_writer_waits(store: GraphStore, repo: str, timeout: float = 60) -> None:
    """Return once a writer of `repo` waits for the repository's lock: the server shows its transaction blocked."""
    deadline = time.monotonic() + timeout
    while not store.driver.execute_query(WAITING_WRITERS, repo=repo)[0][0]["n"]:
        assert time.monotonic() < deadline, f"no writer of {repo} came to wait for its lock in {timeout} s"
        time.sleep(0.05)


def commits(tmp_path) -> tuple[object, list[str]]:
    """Four commits of the Python shop: one file edited and one added; one removed and the edit edited again (so
    the second commit has versions of its own); one moved."""
    files = dict(FIXTURES["python"].files)
    root, first = make_repo(tmp_path / "repo", files)
    edited = sorted(p for p, text in files.items() if "def " in text and p.endswith(".py"))[0]
    _, second = make_repo(root, {edited: files[edited] + "\n\ndef added_helper():\n    return 1\n",
                                 "shop/extra.py": "from shop import *\n\n\ndef extra():\n    return added_helper()\n"},
                          message="edit one file, add one")
    removed = sorted(p for p in files if p != edited and p.endswith(".py"))[0]
    (root / removed).unlink()
    _, third = make_repo(root, {edited: files[edited] + "\n\ndef added_helper():\n    return 2\n"},
                         message="remove a file, edit again")
    (root / "shop/extra.py").rename(root / "shop/moved.py")
    _, fourth = make_repo(root, {}, message="move a file")
    return root, [first, second, third, fourth]


def test_every_view_stays_exact_through_later_writes_and_deletes(tmp_path, store, repo_name):
    root, shas = commits(tmp_path)
    full = {}
    for i, sha in enumerate(shas):
        fresh = f"{repo_name}-full{i}"
        index_repository(store, str(root), repo=fresh, rev=sha, embed=False)
        full[sha] = read_contents(store, fresh, sha).without_repo()
    first_size = count(store, VERSIONS, f"{repo_name}-full0")

    for i, sha in enumerate(shas):
        report = index_repository(store, str(root), repo=repo_name, rev=sha, embed=False)
        assert report.versions.seq == i + 1
        for earlier in shas[: i + 1]:
            assert read_contents(store, repo_name, earlier).without_repo() == full[earlier], (sha, earlier)
    assert count(store, VERSIONS, repo_name) < 2 * first_size  # four commits, not four copies

    before = count(store, VERSIONS, repo_name)
    delete_snapshot(store, repo_name, shas[1])  # a middle one: what only it saw goes
    assert count(store, VERSIONS, repo_name) < before
    delete_snapshot(store, repo_name, shas[3])  # the head: the third is the head again
    for sha in (shas[0], shas[2]):
        assert read_contents(store, repo_name, sha).without_repo() == full[sha]
    assert count(store, UNSEEN_VERSIONS, repo_name) == 0

    again = index_repository(store, str(root), repo=repo_name, rev=shas[3], embed=False)
    assert again.versions.head == shas[2]
    for sha in (shas[0], shas[2], shas[3]):
        assert read_contents(store, repo_name, sha).without_repo() == full[sha]
    delete_snapshot(store, repo_name, shas[0])  # the oldest
    assert read_contents(store, repo_name, shas[2]).without_repo() == full[shas[2]]
    assert count(store, UNSEEN_VERSIONS, repo_name) == 0


def test_a_write_that_dies_midway_is_undone_by_the_next_writer(tmp_path, store, repo_name, monkeypatch):
    root, shas = commits(tmp_path)
    index_repository(store, str(root), repo=repo_name, rev=shas[0], embed=False)
    first = read_contents(store, repo_name, shas[0])
    calls = []

    def dies_on_the_third_phase(self, jobs, params, progress, size=None):
        calls.append(len(jobs))
        if len(calls) == 3:
            raise RuntimeError("killed")
        return original(self, jobs, params, progress, **({"size": size} if size else {}))

    original = GraphStore.write_batches
    monkeypatch.setattr(GraphStore, "write_batches", dies_on_the_third_phase)
    with pytest.raises(RuntimeError, match="killed"):
        index_repository(store, str(root), repo=repo_name, rev=shas[1], embed=False)
    monkeypatch.undo()

    assert read_contents(store, repo_name, shas[0]) == first  # ended versions still serve the head meanwhile
    report = index_repository(store, str(root), repo=repo_name, rev=shas[1], embed=False)

    assert (report.versions.seq, report.versions.head) == (2, shas[0])
    assert read_contents(store, repo_name, shas[0]) == first
    fresh = f"{repo_name}-full"
    index_repository(store, str(root), repo=fresh, rev=shas[1], embed=False)
    assert read_contents(store, repo_name, shas[1]).without_repo() == read_contents(store, fresh, shas[1]).without_repo()
    assert count(store, UNSEEN_VERSIONS, repo_name) == 0


def test_a_snapshot_deleted_while_it_is_indexed_fails_the_run(tmp_path, store, repo_name, monkeypatch):
    root, shas = commits(tmp_path)
    original = pipeline.write_graph

    def deleted_after_the_write(store, report, *args, **kwargs):
        created = original(store, report, *args, **kwargs)
        delete_snapshot(store, report.repo, report.snapshot)  # `spider snapshots delete` between write and complete
        return created

    monkeypatch.setattr(pipeline, "write_graph", deleted_after_the_write)
    with pytest.raises(SpiderError, match="deleted while it was being indexed"):
        index_repository(store, str(root), repo=repo_name, rev=shas[0], embed=False)
    assert store.snapshot_state(repo_name, shas[0]) is None


def test_a_run_whose_snapshot_another_run_wrote_again_does_not_complete_it(tmp_path, store, repo_name, monkeypatch):
    """Two runs of one commit against a Qdrant server (no single-process store) can interleave: the second deletes
    the first's incomplete snapshot and writes its own. The first must not then mark that one complete."""
    root, shas = commits(tmp_path)
    original = pipeline.write_graph

    def overtaken_after_the_write(store, report, *args, **kwargs):
        created = original(store, report, *args, **kwargs)
        monkeypatch.setattr(pipeline, "write_graph", original)
        index_repository(store, str(root), repo=repo_name, rev=shas[0], embed=False)  # the other run, whole
        return created

    monkeypatch.setattr(pipeline, "write_graph", overtaken_after_the_write)
    with pytest.raises(SpiderError, match="written again by another run"):
        index_repository(store, str(root), repo=repo_name, rev=shas[0], embed=False)
    state = store.snapshot_state(repo_name, shas[0])
    assert state.complete  # the other run's


def test_deleting_a_snapshot_frees_its_vectors_before_the_next_writer_starts(tmp_path, store, repo_name, monkeypatch):
    """Else an index run could count on a vector between the delete reading which are used and deleting the rest."""
    root, shas = commits(tmp_path)
    for sha in shas[:2]:
        index_repository(store, str(root), repo=repo_name, rev=sha)
    order, writer = [], None
    original = VectorStore.delete_unused

    def slow_delete_unused(self, repo, used):
        nonlocal writer

        def next_writer():
            with hold_repository(store, repo_name):
                order.append("next writer")

        writer = threading.Thread(target=next_writer)
        writer.start()
        until_a_writer_waits(store, repo_name)  # for the lock the delete holds
        order.append("vectors deleted")
        return original(self, repo, used)

    monkeypatch.setattr(VectorStore, "delete_unused", slow_delete_unused)
    delete_snapshot_and_vectors(store, repo_name, shas[0])
    writer.join(30)
    assert order == ["vectors deleted", "next writer"]


def test_writers_of_one_repository_take_turns_and_a_killed_one_lets_go(store, repo_name):
    store.ensure_schema()
    order = []

    def second_writer():
        with hold_repository(store, repo_name):
            order.append("second")

    with hold_repository(store, repo_name):
        waiting = threading.Thread(target=second_writer)
        waiting.start()
        until_a_writer_waits(store, repo_name)
        order.append("first")
    waiting.join(30)
    assert order == ["first", "second"]

    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\n"
         "from spider.indexer.graph import neo4j_local\n"
         "from spider.indexer.graph.versions import hold_repository\n"
         "from spider.core.settings import Settings\n"
         "with hold_repository(neo4j_local.open_graph(Settings.from_env()), sys.argv[1]):\n"
         "    print('held', flush=True)\n"
         "    time.sleep(600)\n", repo_name],
        stdout=subprocess.PIPE, text=True)
    taken = threading.Event()

    def next_writer():
        with hold_repository(store, repo_name):
            taken.set()

    try:
        assert holder.stdout.readline().strip() == "held"
        waiting = threading.Thread(target=next_writer, daemon=True)
        waiting.start()
        until_a_writer_waits(store, repo_name)  # for the holder
        holder.kill()  # SIGKILL: no cleanup runs, only the connection drops
        holder.wait(10)
        # The server ends the dead holder's transaction when its connection drops, not at the transaction timeout
        # (15 minutes): the waiting writer goes on. 120 s leaves a slow machine room and still tells the two apart.
        assert taken.wait(120), "the killed writer's lock was not let go"
    finally:
        holder.kill()
    waiting.join(30)


def test_a_writer_that_waited_while_the_last_snapshot_went_writes_under_a_new_lock(tmp_path, store, repo_name):
    root, first = make_repo(tmp_path / "repo", {"a.py": "def one():\n    return 1\n"})
    index_repository(store, str(root), repo=repo_name, embed=False)
    make_repo(root, {"b.py": "def two():\n    return 2\n"})
    reports = []

    def index_the_next_commit():
        reports.append(index_repository(store, str(root), repo=repo_name, embed=False, full=True))

    with hold_repository(store, repo_name) as writer:
        waiting = threading.Thread(target=index_the_next_commit)
        waiting.start()
        until_a_writer_waits(store, repo_name)  # its write waits for this writer, which deletes the only snapshot
        writer.delete(first)
    waiting.join(60)

    assert reports[0].versions.seq == 1
    assert store.read("MATCH (r:Repository {repo: $repo}) RETURN r.head", {"repo": repo_name})[1] == [[1]]
