"""The vector store port on real engines: Qdrant Edge, and qdrant-client's local mode standing in for a server.

Both adapters must give the same answers on the same data, and those answers must equal a numpy brute force.
"""

from __future__ import annotations

import os
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

from indexer.errors import SpiderError
from indexer.vectors import (
    EdgeVectorStore,
    Hit,
    QdrantServerStore,
    VectorStore,
    collection_name,
    open_vector_store,
    order_hits,
    point_id,
)

pytestmark = pytest.mark.integration

DIM = 384
COLLECTION = collection_name("test-model", DIM)
REPO_ROOT = Path(__file__).resolve().parents[2]


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
SNAP_P = [0.7, 0.5, 0.5, 0.3, 0.03]  # s4 is rare: some filters match fewer points than the limit


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
        for snap in SNAPS:
            members = [(i, row) for i, row in enumerate(rows) if row[0] == repo and row[3][0] == snap]
            store.upsert(repo, snap, [(h, vectors[i], payload(node)) for i, (_, h, node, _) in members])
    for repo in REPOS:
        for snap in SNAPS:
            later = [h for r, h, _, snaps in rows if r == repo and snap in snaps[1:]]
            assert store.add_snapshot(repo, snap, later) == len(later)


def brute_force(rows, vectors, query, repo, snap, k=100):
    """The exact top k from float64 scores, in the port's documented order (`order_hits`)."""
    unit = vectors.astype(np.float64) / np.linalg.norm(vectors.astype(np.float64), axis=1, keepdims=True)
    q = query.astype(np.float64) / np.linalg.norm(query.astype(np.float64))
    scored = [Hit(node, float(unit[i] @ q), h)
              for i, (r, h, node, snaps) in enumerate(rows) if r == repo and snap in snaps]
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
        for query, repo, snap in queries:
            expected_ids, expected_scores = brute_force(rows, vectors, query, repo, snap)
            short += len(expected_ids) < 100
            for store in (edge, client):
                hits = store.search(query, repo, snap, limit=100)
                assert [h.node_id for h in hits] == expected_ids, type(store).__name__
                assert np.allclose([h.score for h in hits], expected_scores, atol=1e-5, rtol=0)
            edge_scores = [h.score for h in edge.search(query, repo, snap, 100)]
            client_scores = [h.score for h in client.search(query, repo, snap, 100)]
            assert np.allclose(edge_scores, client_scores, atol=1e-5, rtol=0)
        assert 0 < short < len(queries)  # the data exercise both "fewer matches than the limit" and a real cut
    finally:
        close_store(edge)
        close_store(client)


def test_equal_scores_are_ordered_by_node_id(store):
    rng = np.random.default_rng(3)
    same = rng.standard_normal(DIM)
    names = ["z.py:f", "a.py:f", "m.py:f", "b.py:f", "y.py:f"]
    store.upsert("r", "s", [(f"h{i}", same, payload(name)) for i, name in enumerate(names)])
    store.upsert("r", "s", points(["other1", "other2"], rng))

    hits = store.search(same, "r", "s", limit=3)

    assert [h.node_id for h in hits] == ["a.py:f", "b.py:f", "m.py:f"]
    assert all(abs(h.score - 1.0) < 1e-5 for h in hits)


# ---- (2) snapshot lifecycle ------------------------------------------------------------------------------------


def test_snapshot_lifecycle(store):
    rng = np.random.default_rng(11)
    old = [f"h{i}" for i in range(10)]
    kept, new = old[:6], ["n0", "n1", "n2"]
    q = rng.standard_normal(DIM)

    assert store.upsert("r", "S1", points(old, rng)) == 10
    assert store.upsert("other/repo", "S1", points(old, rng)) == 10  # same hashes, another repo: other points
    assert store.add_snapshot("r", "S2", kept + ["never-stored"]) == 6
    assert store.upsert("r", "S2", points(new + [kept[0]], rng)) == 3  # kept[0] exists: merged, not re-added

    assert ids(store.search(q, "r", "S1", 100)) == {f"m.py:f_{h}" for h in old}
    assert ids(store.search(q, "r", "S2", 100)) == {f"m.py:f_{h}" for h in kept + new}
    assert store.search(q, "r", "S3", 100) == []
    assert (store.count(), store.count("r"), store.count("r", "S1"), store.count("r", "S2")) == (23, 13, 10, 9)
    assert store.count(snapshot="S1") == 20

    assert store.remove_snapshot("r", "S1") == (6, 4)

    assert store.search(q, "r", "S1", 100) == []
    assert ids(store.search(q, "r", "S2", 100)) == {f"m.py:f_{h}" for h in kept + new}
    assert (store.count(), store.count("r"), store.count("r", "S2")) == (19, 9, 9)
    assert store.missing("r", old) == set(old[6:])
    assert store.count("other/repo", "S1") == 10  # untouched
    assert store.remove_snapshot("r", "S1") == (0, 0)
    assert store.remove_snapshot("r", "S2") == (0, 9)
    assert (store.count("r"), store.count()) == (0, 10)


def test_upsert_batches_and_hits_carry_the_payload(store):
    rng = np.random.default_rng(5)
    hashes = [f"h{i}" for i in range(1100)]  # more than one insert batch and one id batch
    vectors = {h: rng.standard_normal(DIM) for h in hashes}

    assert store.upsert("r", "S", [(h, vectors[h], payload(f"src/x.py:f{h}")) for h in hashes]) == 1100
    assert store.upsert("r", "S", [(h, vectors[h], payload(f"src/x.py:f{h}")) for h in hashes]) == 0
    assert store.add_snapshot("r", "T", hashes) == 1100

    top = store.search(vectors["h777"], "r", "T", limit=1)[0]
    assert (top.node_id, top.content_hash, top.path, top.language, top.kind) == (
        "src/x.py:fh777", "h777", "src/x.py", "python", "function")
    assert abs(top.score - 1.0) < 1e-5
    assert (store.count("r", "S"), store.count("r", "T")) == (1100, 1100)


# ---- (3) missing --------------------------------------------------------------------------------------------------


def test_missing_reports_only_hashes_without_a_point_in_that_repo(store):
    rng = np.random.default_rng(2)
    assert store.missing("r", ["a", "b"]) == {"a", "b"}
    store.upsert("r", "S", points(["a", "b", "c"], rng))

    assert store.missing("r", ["a", "b", "c", "d", "e"]) == {"d", "e"}
    assert store.missing("r", []) == set()
    assert store.missing("elsewhere", ["a"]) == {"a"}
    # both engines key points by point_id and hand ids back as the same canonical strings
    assert store._retrieve([point_id("r", "a"), point_id("r", "zz")]) == {point_id("r", "a"): ["S"]}


# ---- (4) reopen -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["edge", "client-disk"])
def test_reopened_store_returns_the_same_results(tmp_path, kind):
    rng = np.random.default_rng(9)
    queries = [rng.standard_normal(DIM) for _ in range(5)]
    store = make_store(kind, tmp_path)
    store.upsert("r", "S1", points([f"h{i}" for i in range(300)], rng))
    store.add_snapshot("r", "S2", [f"h{i}" for i in range(0, 300, 3)])
    before = [store.search(q, "r", "S2", 50) for q in queries]
    close_store(store)

    reopened = make_store(kind, tmp_path)
    try:
        after = [reopened.search(q, "r", "S2", 50) for q in queries]
        assert [[(h.node_id, h.content_hash) for h in hits] for hits in after] == [
            [(h.node_id, h.content_hash) for h in hits] for hits in before]
        assert np.allclose([[h.score for h in hits] for hits in after], [[h.score for h in hits] for hits in before],
                           atol=1e-6, rtol=0)  # local mode rescores ~1e-8 differently after a reopen
        assert (reopened.count("r", "S1"), reopened.count("r", "S2")) == (300, 100)
        assert reopened.upsert("r", "S3", points(["h0", "new"], rng)) == 1
    finally:
        close_store(reopened)


def test_edge_shard_keeps_its_payload_indexes(tmp_path):
    with EdgeVectorStore(tmp_path / COLLECTION, DIM) as store:
        store.upsert("r", "S", points(["a"], np.random.default_rng(0)))
    with EdgeVectorStore(tmp_path / COLLECTION, DIM) as store:
        schema = store._shard.info().payload_schema
        assert {"repo", "snapshots"} <= set(schema)


def test_edge_shard_of_another_size_is_a_one_line_error(tmp_path):
    EdgeVectorStore(tmp_path / COLLECTION, DIM).close()
    with pytest.raises(SpiderError) as err:
        EdgeVectorStore(tmp_path / COLLECTION, 8)
    assert "another size" in str(err.value) and "\n" not in str(err.value)


# ---- (5) one process at a time on an Edge shard -----------------------------------------------------------------

OPEN_SCRIPT = textwrap.dedent("""
    import sys, time
    from indexer.errors import SpiderError
    from indexer.vectors import open_vector_store
    start = time.monotonic()
    try:
        open_vector_store(sys.argv[1], int(sys.argv[2])).close()
        print("opened", round(time.monotonic() - start, 2))
    except SpiderError as exc:
        print("SpiderError", round(time.monotonic() - start, 2), exc)
""")

HOLD_SCRIPT = textwrap.dedent("""
    import sys, time
    from indexer.vectors import open_vector_store
    store = open_vector_store(sys.argv[1], int(sys.argv[2]))
    print("holding", flush=True)
    time.sleep(float(sys.argv[3]))
    store.close()
""")


def spider_env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("QDRANT_URL", "QDRANT_API_KEY")}
    return {**env, "SPIDER_HOME": str(home), "PYTHONPATH": str(REPO_ROOT)}


def test_second_process_on_a_held_edge_shard_gets_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path))
    held = open_vector_store(COLLECTION, DIM)
    try:
        result = subprocess.run([sys.executable, "-c", OPEN_SCRIPT, COLLECTION, str(DIM)],
                                env=spider_env(tmp_path), capture_output=True, text=True, timeout=120)
    finally:
        held.close()

    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout + result.stderr
    kind, waited, message = lines[0].split(" ", 2)
    assert kind == "SpiderError"
    assert float(waited) >= 2.5  # it retried before giving up
    assert message == (
        f"the local vector store is in use by another spider process ({tmp_path / 'vectors' / COLLECTION}); "
        "wait for it, or set QDRANT_URL to use a Qdrant server"
    )


def test_opening_waits_for_a_process_that_lets_go_soon(tmp_path, monkeypatch):
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path))
    holder = subprocess.Popen([sys.executable, "-c", HOLD_SCRIPT, COLLECTION, str(DIM), "1.0"],
                              env=spider_env(tmp_path), stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        start = time.monotonic()
        with open_vector_store(COLLECTION, DIM) as store:
            waited = time.monotonic() - start
            assert isinstance(store, EdgeVectorStore)
            assert store.count() == 0
        assert waited > 0.3
    finally:
        holder.wait(timeout=60)
    assert holder.returncode == 0


# ---- choosing the adapter; server errors -------------------------------------------------------------------------


def test_without_qdrant_url_the_store_is_an_edge_shard_under_spider_home(tmp_path, monkeypatch):
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path))
    with open_vector_store(COLLECTION, DIM) as store:
        assert isinstance(store, EdgeVectorStore)
    assert (tmp_path / "vectors" / COLLECTION / "segments").is_dir()


def test_unreachable_qdrant_server_is_a_one_line_error(tmp_path, monkeypatch):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: nothing listens there
    monkeypatch.setenv("QDRANT_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("SPIDER_HOME", str(tmp_path))

    with pytest.raises(SpiderError) as err:
        open_vector_store(COLLECTION, DIM)

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
            open_vector_store(COLLECTION, DIM)
    finally:
        server.shutdown()
        server.server_close()

    assert str(err.value) == (
        f"the Qdrant server at http://127.0.0.1:{server.server_port} refused the API key (HTTP 401); "
        "check QDRANT_API_KEY"
    )


def test_vectors_of_the_wrong_size_are_refused(store):
    with pytest.raises(ValueError):
        store.upsert("r", "S", [("h", np.zeros(DIM - 1), payload("m.py:f"))])
    with pytest.raises(ValueError):
        store.search(np.zeros(DIM + 1), "r", "S", 10)
    assert store.count() == 0
