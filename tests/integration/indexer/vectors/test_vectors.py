"""The vector store port on real engines: Qdrant Edge, and qdrant-client's local mode standing in for a server.

Both adapters must give the same answers on the same data, and those answers must equal a numpy brute force.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient
from spider.core.errors import SpiderError, StoreBusy
from spider.indexer.vectors.edge import EdgeVectorStore
from spider.indexer.vectors.open_store import open_vector_store
from spider.indexer.vectors.server import QdrantServerStore
from spider.indexer.vectors.store import (
    WINDOW,
    Hit,
    Members,
    VectorStore,
    collection_name,
    members_of,
    order_hits,
    point_id,
)

DIM = 384
MODEL = "test-model"
COLLECTION = collection_name(MODEL, DIM)
HNSW_POINTS = 8000  # above Edge's default indexing threshold (10,000 KB = 6,667 vectors of 384 floats)
REPO_ROOT = Path(__file__).resolve().parents[4]


def make_store(kind: str, root: Path) -> VectorStore:
    """edge: an Edge shard under root. client: qdrant-client local mode in memory (the same engine code as with
    a path, minus persistence, which commits to SQLite per point: ~15 ms a point here). client-disk: with a path,
    for the tests that reopen."""
    if kind == "edge":
        return EdgeVectorStore(root / "edge" / COLLECTION, DIM)
    client = QdrantClient(path=str(root / "client")) if kind == "client-disk" else QdrantClient(":memory:")
    store = QdrantServerStore(COLLECTION, DIM, client=client)
    store._test_client = client  # closed by the test: the store closes only clients it created
    return store


def close_store(store: VectorStore) -> None:
    store.close()
    client = getattr(store, "_test_client", None)
    if client is not None:
        client.close()


@pytest.fixture(params=["edge", "client"])
def store(request, tmp_path):
    opened = make_store(request.param, tmp_path)
    yield opened
    close_store(opened)


def payload(node_id: str) -> dict:
    return {"node_id": node_id, "path": node_id.split(":")[0], "language": "python", "kind": "function"}


def points(hashes, rng, prefix="m.py:f_"):
    return [(h, rng.standard_normal(DIM), payload(f"{prefix}{h}")) for h in hashes]


def ids(hits) -> set[str]:
    return {hit.node_id for hit in hits}


# ---- (1) congruence ---------------------------------------------------------------------------------------------

REPOS = ["org/alpha", "org/beta", "org/gamma"]
SNAPS = ["s0", "s1", "s2", "s3", "s4"]
SNAP_P = [0.7, 0.5, 0.5, 0.3, 0.03]  # s4 is rare: some searches need several rounds and still find fewer than 100


def dataset(seed=7, n=3000):
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    rows = []
    for i in range(n):
        repo = REPOS[rng.integers(len(REPOS))]
        snaps = [s for s, p in zip(SNAPS, SNAP_P) if rng.random() < p] or ["s0"]
        rows.append((repo, f"h{i:05d}", f"pkg/m{i % 97}.py:f{i}", snaps))
    queries = [(rng.standard_normal(DIM).astype(np.float32), REPOS[rng.integers(3)], SNAPS[rng.integers(5)])
               for _ in range(30)]
    return rows, vectors, queries


def load(store: VectorStore, rows, vectors) -> None:
    for repo in REPOS:
        mine = [(i, row) for i, row in enumerate(rows) if row[0] == repo]
        assert store.insert(repo, [(h, vectors[i], payload(node)) for i, (_, h, node, _) in mine]) == len(mine)


def members_in(rows, repo, snap) -> Members:
    return members_of(repo, [(node, h) for r, h, node, snaps in rows if r == repo and snap in snaps])


def own(repo, hashes, prefix="m.py:f_") -> Members:
    """The members of a snapshot holding the `points` of `hashes`."""
    return members_of(repo, [(f"{prefix}{h}", h) for h in hashes])


def brute_force(rows, vectors, query, repo, snap, k=100):
    """The exact top k from float64 scores, in the port's documented order (`order_hits`)."""
    unit = vectors.astype(np.float64) / np.linalg.norm(vectors.astype(np.float64), axis=1, keepdims=True)
    q = query.astype(np.float64) / np.linalg.norm(query.astype(np.float64))
    scored = [Hit(node, float(unit[i] @ q), h)
              for i, (r, h, node, snaps) in enumerate(rows) if r == repo and (snap is None or snap in snaps)]
    top = order_hits(scored)[:k]
    return [hit.node_id for hit in top], [hit.score for hit in top]


def test_both_adapters_return_the_numpy_brute_force_top_100(tmp_path):
    rows, vectors, queries = dataset()
    edge, client = make_store("edge", tmp_path), make_store("client", tmp_path)
    try:
        for store in (edge, client):
            load(store, rows, vectors)
            assert store.count() == len(rows)
        short = 0
        for query, repo, snap in queries + [(queries[0][0], REPOS[0], None)]:
            expected_ids, expected_scores = brute_force(rows, vectors, query, repo, snap)
            short += len(expected_ids) < 100
            members = None if snap is None else members_in(rows, repo, snap)
            for store in (edge, client):
                hits = store.search(query, repo, limit=100, members=members)
                assert [h.node_id for h in hits] == expected_ids, type(store).__name__
                assert np.allclose([h.score for h in hits], expected_scores, atol=1e-5, rtol=0)
            edge_scores = [h.score for h in edge.search(query, repo, 100, members)]
            client_scores = [h.score for h in client.search(query, repo, 100, members)]
            assert np.allclose(edge_scores, client_scores, atol=1e-5, rtol=0)
        assert 0 < short < len(queries)  # the data exercise both "fewer matches than the limit" and a real cut
    finally:
        close_store(edge)
        close_store(client)


def test_search_fetches_by_the_members_share_and_again_when_too_few_were_members(store):
    rng = np.random.default_rng(4)
    vectors = {f"h{i}": rng.standard_normal(DIM) for i in range(400)}
    store.insert("r", [(h, v, payload(f"m.py:{h}")) for h, v in vectors.items()])
    q = rng.standard_normal(DIM)
    near = sorted(vectors, key=lambda h: -float(vectors[h] @ q) / np.linalg.norm(vectors[h]))
    rounds: list[int] = []
    engine = store._query
    store._query = lambda *args, **kwargs: rounds.append(args[2]) or engine(*args, **kwargs)

    hits = store.search(q, "r", limit=5, members=own("r", near[-40:], prefix="m.py:"))  # 40 of 400, all far from the query

    assert [h.content_hash for h in hits] == near[-40:][:5]
    assert rounds[0] == 231  # (5 + TIE_MARGIN) / (40 / 400) x 1.1: what the share predicts
    assert rounds[1:] == [462]  # those 231 were the nearest, so none were members: twice as many
    rounds.clear()
    assert store.search(q, "r", limit=5, members={}) == [] and rounds == []
    assert [h.content_hash for h in store.search(q, "r", limit=3, members=own("r", near, prefix="m.py:"))] == near[:3]
    assert rounds == [21]  # every point a member: (3 + TIE_MARGIN) x 1.1, rounded up


def test_equal_scores_are_ordered_by_node_id(store):
    rng = np.random.default_rng(3)
    same = rng.standard_normal(DIM)
    names = ["z.py:f", "a.py:f", "m.py:f", "b.py:f", "y.py:f"]
    store.insert("r", [(f"h{i}", same, payload(name)) for i, name in enumerate(names)])
    store.insert("r", points(["other1", "other2"], rng))

    hits = store.search(same, "r", limit=3)

    assert [h.node_id for h in hits] == ["a.py:f", "b.py:f", "m.py:f"]
    assert all(abs(h.score - 1.0) < 1e-5 for h in hits)


# ---- (2) lifecycle: insert, reuse, delete what no snapshot uses ------------------------------------------------


def test_points_are_per_repo_and_unused_ones_are_deleted(store):
    rng = np.random.default_rng(11)
    old = [f"h{i}" for i in range(10)]
    kept, new = old[:6], ["n0", "n1", "n2"]
    q = rng.standard_normal(DIM)

    assert store.insert("r", points(old, rng)) == 10
    assert store.insert("other/repo", points(old, rng)) == 10  # same hashes, another repo: other points
    assert store.insert("r", points(new + [kept[0]], rng)) == 3  # kept[0] exists: left as it is
    assert (store.count(), store.count("r"), store.count("other/repo"), store.count("nobody")) == (23, 13, 10, 0)
    assert ids(store.search(q, "r", 100, own("r", kept + new))) == {f"m.py:f_{h}" for h in kept + new}
    assert ids(store.search(q, "r", 100)) == {f"m.py:f_{h}" for h in old + new}

    assert store.delete_unused("r", set(kept + new)) == 4

    assert ids(store.search(q, "r", 100)) == {f"m.py:f_{h}" for h in kept + new}
    assert store.missing("r", old) == set(old[6:])
    assert store.count("other/repo") == 10  # untouched
    assert store.delete_unused("r", set(kept + new)) == 0
    assert store.delete_unused("r", set()) == 9
    assert (store.count("r"), store.count()) == (0, 10)


def test_insert_batches_and_hits_carry_the_node_id_and_content_hash(store):
    rng = np.random.default_rng(5)
    hashes = [f"h{i}" for i in range(1100)]  # more than one insert batch and one id batch
    vectors = {h: rng.standard_normal(DIM) for h in hashes}

    assert store.insert("r", [(h, vectors[h], payload(f"src/x.py:f{h}")) for h in hashes]) == 1100
    assert store.insert("r", [(h, vectors[h], payload(f"src/x.py:f{h}")) for h in hashes]) == 0

    top = store.search(vectors["h777"], "r", limit=1)[0]
    assert (top.node_id, top.content_hash) == ("src/x.py:fh777", "h777")
    assert abs(top.score - 1.0) < 1e-5
    assert store.count("r") == 1100


def test_a_function_is_found_by_its_best_window_once_and_its_windows_go_with_it(store):
    rng = np.random.default_rng(13)
    base = {h: rng.standard_normal(DIM) for h in ("a", "b", "c")}
    later = rng.standard_normal(DIM)  # b's third window: the only point near the query
    assert store.insert("r", [(h, v, payload(f"m.py:f_{h}")) for h, v in base.items()]) == 3
    assert store.insert("r", [("b", rng.standard_normal(DIM), {**payload("m.py:f_b"), WINDOW: 2}),
                              ("b", later, {**payload("m.py:f_b"), WINDOW: 3})]) == 2
    assert store.count("r") == 5
    query = later + 0.01 * rng.standard_normal(DIM)

    for members in (own("r", ["a", "b", "c"]), None):
        hits = store.search(query, "r", 3, members)
        assert [h.node_id for h in hits][0] == "m.py:f_b"
        assert sorted(h.node_id for h in hits) == ["m.py:f_a", "m.py:f_b", "m.py:f_c"]  # b once
        assert hits[0].score > 0.99 and hits[0].content_hash == "b"
    assert store.search(query, "r", 3, own("r", ["a", "c"]))[0].node_id != "m.py:f_b"  # not a member: no window
    assert store.missing_windows("r", {"a": 2, "b": 4}) == {("a", 2), ("b", 4)}
    assert store.missing("r", ["b", "d"]) == {"d"}

    assert store.delete_unused("r", {"a", "c"}) == 3  # b and its two later windows
    assert store.count("r") == 2


# ---- (3) missing --------------------------------------------------------------------------------------------------


def test_missing_reports_only_hashes_without_a_point_in_that_repo(store):
    rng = np.random.default_rng(2)
    assert store.missing("r", ["a", "b"]) == {"a", "b"}
    store.insert("r", points(["a", "b", "c"], rng))

    assert store.missing("r", ["a", "b", "c", "d", "e"]) == {"d", "e"}
    assert store.missing("r", []) == set()
    assert store.missing("elsewhere", ["a"]) == {"a"}
    # both engines key points by point_id and hand ids back as the same canonical strings
    assert store._existing("r", [point_id("r", "a"), point_id("r", "zz")]) == {point_id("r", "a")}


def test_holds_all_looks_up_every_hash_or_a_few_spread_over_them(store):
    hashes = [f"h{i:03d}" for i in range(100)]
    store.insert("r", points(hashes[1:], np.random.default_rng(6)))  # h000 has no point
    looked_up: list[int] = []
    engine = store._existing
    store._existing = lambda repo, ids: looked_up.append(len(ids)) or engine(repo, ids)

    assert store.holds_all("r", hashes[1:], thorough=True) and sum(looked_up) == 99
    assert not store.holds_all("r", hashes, thorough=True)
    looked_up.clear()
    assert not store.holds_all("r", reversed(hashes), thorough=False)  # the few are spread over the sorted hashes
    assert 0 < sum(looked_up) <= 9
    assert store.holds_all("r", hashes[1:], thorough=False)
    assert not store.holds_all("elsewhere", hashes[1:], thorough=False)
    assert store.holds_all("r", [], thorough=False)


def test_an_edge_store_keeps_its_id_and_one_made_again_in_its_place_is_another_store(tmp_path):
    with EdgeVectorStore(tmp_path / COLLECTION, DIM) as store:
        made = store.store_id
        assert store.where == f"the local vector store {tmp_path / COLLECTION}"
    with EdgeVectorStore(tmp_path / COLLECTION, DIM) as store:
        assert store.store_id == made
    with EdgeVectorStore(tmp_path / "other" / COLLECTION, DIM) as store:
        assert store.store_id != made
    shutil.rmtree(tmp_path / COLLECTION)
    with EdgeVectorStore(tmp_path / COLLECTION, DIM) as store:
        assert store.store_id != made and len(store.store_id) == 32


# ---- (4) reopen; the HNSW index --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["edge", "client-disk"])
def test_reopened_store_returns_the_same_results(tmp_path, kind):
    rng = np.random.default_rng(9)
    queries = [rng.standard_normal(DIM) for _ in range(5)]
    store = make_store(kind, tmp_path)
    store.insert("r", points([f"h{i}" for i in range(300)], rng))
    members = own("r", [f"h{i}" for i in range(0, 300, 3)])
    before = [store.search(q, "r", 50, members) for q in queries]
    close_store(store)

    reopened = make_store(kind, tmp_path)
    try:
        after = [reopened.search(q, "r", 50, members) for q in queries]
        assert [[(h.node_id, h.content_hash) for h in hits] for hits in after] == [
            [(h.node_id, h.content_hash) for h in hits] for hits in before]
        assert np.allclose([[h.score for h in hits] for hits in after], [[h.score for h in hits] for hits in before],
                           atol=1e-6, rtol=0)  # local mode rescores ~1e-8 differently after a reopen
        assert reopened.count("r") == 300
        assert reopened.insert("r", points(["h0", "new"], rng)) == 1
    finally:
        close_store(reopened)


def test_edge_shard_keeps_its_tenant_index_on_repo_and_upgrades_an_old_shard(tmp_path):
    import qdrant_edge as E

    with EdgeVectorStore(tmp_path / COLLECTION, DIM) as store:
        store.insert("r", points(["a"], np.random.default_rng(0)))
        with store._holding("r") as shard:
            shard.update(E.UpdateOperation.delete_field_index("repo"))
            for field in ("repo", "snapshots"):  # the indexes of a store written before membership left the payload
                shard.update(E.UpdateOperation.create_field_index(field, E.PayloadSchemaType.Keyword))
            assert shard.info().payload_schema["repo"].params is None
    for _ in range(2):
        with EdgeVectorStore(tmp_path / COLLECTION, DIM) as store:
            with store._holding("r") as shard:
                schema = shard.info().payload_schema
            assert set(schema) == {"repo"} and schema["repo"].params.is_tenant
            assert ids(store.search(np.ones(DIM), "r", 5)) == {"m.py:f_a"}


def test_build_index_puts_edge_points_in_hnsw_and_search_still_finds_them(tmp_path):
    rng = np.random.default_rng(8)
    vectors = rng.standard_normal((HNSW_POINTS, DIM)).astype(np.float32)
    with EdgeVectorStore(tmp_path / COLLECTION, DIM) as store:
        store.insert("r", [(f"h{i}", v, payload(f"m.py:f{i}")) for i, v in enumerate(vectors)])
        store.insert("s", points(["x", "y"], rng))
        assert indexed_vectors(store, "r") == 0
        store.build_index("r")
        assert indexed_vectors(store, "r") >= HNSW_POINTS
        for i in rng.choice(HNSW_POINTS, 20, replace=False):
            near = vectors[i] + 0.1 * rng.standard_normal(DIM)
            assert store.search(near, "r", limit=5)[0].node_id == f"m.py:f{i}"
        assert ids(store.search(vectors[0], "s", 10)) == {"m.py:f_x", "m.py:f_y"}  # the repo filter holds in HNSW


def indexed_vectors(store: EdgeVectorStore, repo: str) -> int:
    with store._holding(repo) as shard:
        return shard.info().indexed_vectors_count


def test_edge_shard_of_another_size_is_a_one_line_error(tmp_path):
    with EdgeVectorStore(tmp_path / COLLECTION, DIM) as store:
        store.insert("r", points(["a"], np.random.default_rng(0)))
    with pytest.raises(SpiderError) as err:
        EdgeVectorStore(tmp_path / COLLECTION, 8).search(np.ones(8), "r", 5)
    assert "another size" in str(err.value) and "\n" not in str(err.value)


# ---- (5) processes and threads share an Edge store ------------------------------------------------------------

HOLD_SCRIPT = textwrap.dedent("""
    import sys, time
    import numpy as np
    from spider.indexer.vectors.edge import EdgeVectorStore
    store = EdgeVectorStore(sys.argv[1], int(sys.argv[2]))
    store.insert(sys.argv[3], [("a", np.ones(int(sys.argv[2])), {"node_id": "m.py:f_a"})])
    hold = store.writing(sys.argv[3]) if sys.argv[4] == "writing" else store._holding(sys.argv[3])
    with hold:
        print("holding", flush=True)
        time.sleep(float(sys.argv[5]))
""")


def holder(directory: Path, repo: str, what: str, seconds: float) -> subprocess.Popen:
    """Another process that holds `repo`'s shard (`what`: "shard") or its writer lease ("writing")."""
    process = subprocess.Popen([sys.executable, "-c", HOLD_SCRIPT, str(directory), str(DIM), repo, what, str(seconds)],
                               env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "holding"
    return process


def test_a_shard_another_process_holds_is_waited_for_then_a_one_line_error(tmp_path):
    directory = tmp_path / COLLECTION
    process = holder(directory, "r", "shard", 30)
    try:
        store = EdgeVectorStore(directory, DIM, lock_wait=1.0)
        start = time.monotonic()
        with pytest.raises(StoreBusy) as err:
            store.search(np.ones(DIM), "r", 5)
        assert time.monotonic() - start >= 0.9  # it retried before giving up
        assert str(err.value) == (f"the local vector store is in use by another spider process "
                                  f"({store.shard_directory('r')}); wait for it, or set QDRANT_URL to use a Qdrant "
                                  "server")
        assert store.insert("s", points(["b"], np.random.default_rng(0))) == 1  # another repository's shard is free
        assert ids(store.search(np.ones(DIM), "s", 5)) == {"m.py:f_b"}
    finally:
        process.kill()  # SIGKILL: the system lets go of the shard's lock
        process.wait(30)
    assert ids(store.search(np.ones(DIM), "r", 5)) == {"m.py:f_a"}


def test_a_search_waits_for_a_process_that_lets_go_soon(tmp_path):
    directory = tmp_path / COLLECTION
    process = holder(directory, "r", "shard", 1.0)
    try:
        start = time.monotonic()
        assert ids(EdgeVectorStore(directory, DIM).search(np.ones(DIM), "r", 5)) == {"m.py:f_a"}
        assert time.monotonic() - start > 0.3
    finally:
        process.wait(timeout=60)
    assert process.returncode == 0


def test_a_second_writer_of_a_repository_gives_up_and_readers_and_other_writers_go_on(tmp_path):
    directory = tmp_path / COLLECTION
    process = holder(directory, "r", "writing", 30)
    try:
        store = EdgeVectorStore(directory, DIM, lock_wait=1.0)
        with pytest.raises(StoreBusy) as err:
            with store.writing("r"):
                pass
        assert str(err.value) == (f"another spider process is writing the vectors of r into the local vector store "
                                  f"{directory}; wait for it to finish, then run again")
        assert ids(store.search(np.ones(DIM), "r", 5)) == {"m.py:f_a"}  # the writer holds no shard between writes
        with store.writing("s"):
            assert store.insert("s", points(["b"], np.random.default_rng(0))) == 1
    finally:
        process.kill()
        process.wait(30)
    with store.writing("r"):  # a killed writer's lease is let go
        pass


def test_threads_share_a_shard_while_one_of_them_writes(tmp_path):
    store = EdgeVectorStore(tmp_path / COLLECTION, DIM, lock_wait=0.5)
    rng = np.random.default_rng(3)
    store.insert("r", points([f"h{i}" for i in range(50)], rng))
    failures: list[BaseException] = []

    def reader() -> None:
        try:
            for _ in range(20):
                assert len(store.search(rng.standard_normal(DIM), "r", 10)) == 10
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    def writer() -> None:
        try:
            for batch in range(10):
                store.insert("r", points([f"w{batch}-{i}" for i in range(30)], np.random.default_rng(batch)))
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    threads = [threading.Thread(target=reader) for _ in range(8)] + [threading.Thread(target=writer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == [] and store.count("r") == 50 + 300


def test_a_collection_with_one_shard_is_split_into_one_shard_per_repository(tmp_path):
    """A store written before one shard per repository: its points move, its files go, its identity stays."""
    import qdrant_edge as E

    directory = tmp_path / COLLECTION
    rng = np.random.default_rng(4)
    vectors = {repo: rng.standard_normal((40, DIM)).astype(np.float32) for repo in ("org/a", "org/b")}
    store_id = "0123456789abcdef0123456789abcdef"
    legacy = E.EdgeShard.create(str(directory), E.EdgeConfig(
        vectors=E.EdgeVectorParams(size=DIM, distance=E.Distance.Cosine), wal_enabled=True,
        hnsw_config=E.HnswIndexConfig(m=0, payload_m=32, ef_construct=200, full_scan_threshold=10_000)))
    legacy.update(E.UpdateOperation.create_field_index("repo", E.KeywordIndexParams(is_tenant=True)))
    for repo, rows in vectors.items():
        legacy.update(E.UpdateOperation.upsert_points([
            E.Point(id=point_id(repo, f"h{i}"), vector=v,
                    payload={**payload(f"m.py:f{i}"), "repo": repo, "content_hash": f"h{i}", "snapshots": ["s"]})
            for i, v in enumerate(rows)]))
    legacy.flush()
    legacy.close()
    (directory / "spider-store-id").write_text(store_id)

    store = EdgeVectorStore(directory, DIM)

    assert store.store_id == store_id
    assert sorted(p.name for p in directory.iterdir()) == [".split.lock", "repos", "spider-store-id"]
    for repo, rows in vectors.items():
        assert store.count(repo) == 40
        assert [h.node_id for h in store.search(rows[7], repo, 1)] == ["m.py:f7"]
        assert not store.missing(repo, [f"h{i}" for i in range(40)])
    assert store.count() == 80


# ---- choosing the adapter; server errors -------------------------------------------------------------------------


def test_without_qdrant_url_the_store_is_an_edge_shard_under_spider_home(tmp_path, monkeypatch):
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path))
    with open_vector_store(MODEL, DIM) as store:
        assert isinstance(store, EdgeVectorStore)
        store.insert("org/r", points(["a"], np.random.default_rng(0)))
    assert (store.shard_directory("org/r") / "segments").is_dir()
    assert store.shard_directory("org/r").parent == tmp_path / "vectors" / COLLECTION / "repos"


def test_unreachable_qdrant_server_is_a_one_line_error(tmp_path, monkeypatch):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: nothing listens there
    monkeypatch.setenv("QDRANT_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path))

    with pytest.raises(SpiderError) as err:
        open_vector_store(MODEL, DIM)

    message = str(err.value)
    assert message.startswith(f"cannot reach the Qdrant server at http://127.0.0.1:{port}")
    assert "\n" not in message
    assert not (tmp_path / "vectors").exists()


class _Refuses(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the answer Qdrant gives a wrong api-key
        body = b'{"status":{"error":"Must provide an API key or an Authorization bearer token"}}'
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_rejected_api_key_is_a_one_line_error(monkeypatch):
    server = HTTPServer(("127.0.0.1", 0), _Refuses)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("QDRANT_URL", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.setenv("QDRANT_API_KEY", "wrong")
    try:
        with pytest.warns(UserWarning, match="insecure"), pytest.raises(SpiderError) as err:
            open_vector_store(MODEL, DIM)
    finally:
        server.shutdown()
        server.server_close()

    assert str(err.value) == (
        f"the Qdrant server at http://127.0.0.1:{server.server_port} refused the API key (HTTP 401); "
        "check QDRANT_API_KEY"
    )


def test_vectors_of_the_wrong_size_are_refused(store):
    with pytest.raises(ValueError):
        store.insert("r", [("h", np.zeros(DIM - 1), payload("m.py:f"))])
    with pytest.raises(ValueError):
        store.search(np.zeros(DIM + 1), "r", 10)
    assert store.count() == 0
