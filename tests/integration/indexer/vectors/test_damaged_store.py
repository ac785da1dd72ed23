"""A damaged local vector store (Qdrant Edge shard files truncated or overwritten) makes the engine panic; a panic
is pyo3's PanicException, a BaseException. spider turns it into one line that names the store and how to rebuild
it (CorruptStore: exit 2, a tool error over MCP), and Rust's own report of the panic never reaches stderr."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from spider.core.errors import CorruptStore
from spider.indexer import open_stores
from spider.indexer.vectors.edge import EdgeVectorStore
from spider.query.mcp import build_server

from tests.fixtures.bounded import run_bounded
from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import PYTHON
from tests.fixtures.tiny_model import build_tiny_model
from tests.integration.conftest import TEST_MODEL
from tests.integration.helpers import ISSUE, succeeded, unique_name
from tests.integration.query.mcp.conftest import call_tools, error_text, structured

DIM = 4
UNREADABLE = "segments/*/vector_storage/vectors/status.dat"  # truncated: the shard panics as it loads
GARBLED = "segments/*/payload_storage/tracker.dat"  # overwritten while open: a search that reads payloads panics
REBUILD = "delete that directory, then run `spider index PATH` again for each repository to rebuild it"


def shard_file(shard: Path, pattern: str) -> Path:
    (found,) = shard.glob(pattern)
    return found


def filled_shard(directory: Path) -> EdgeVectorStore:
    store = EdgeVectorStore(directory, DIM)
    store.insert("r", [(f"h{i}", np.full(DIM, i + 1.0), {"node_id": f"m.py:f{i}"}) for i in range(20)])
    return store


def shard_of_r(directory: Path) -> Path:
    return EdgeVectorStore(directory, DIM).shard_directory("r")


def test_a_shard_that_panics_as_it_loads_is_a_corrupt_store_and_stderr_stays_quiet(tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("RUST_BACKTRACE", "1")
    filled_shard(tmp_path / "shard").close()
    shard_file(shard_of_r(tmp_path / "shard"), UNREADABLE).write_bytes(b"")
    capfd.readouterr()
    with pytest.raises(CorruptStore) as failed:
        EdgeVectorStore(tmp_path / "shard", DIM).search(np.ones(DIM), "r", 5)
    assert str(failed.value).startswith(f"the local vector store {shard_of_r(tmp_path / 'shard')} is damaged (its "
                                        "engine failed: ")
    assert str(failed.value).endswith(REBUILD)
    assert capfd.readouterr().err == ""


def test_a_panic_in_a_search_is_a_corrupt_store_too(tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("RUST_BACKTRACE", "1")
    filled_shard(tmp_path / "shard").close()
    store = EdgeVectorStore(tmp_path / "shard", DIM)
    with store._holding("r"):  # open, its files mapped, while they are damaged and searched
        with shard_file(store.shard_directory("r"), GARBLED).open("r+b") as garbled:  # in place
            garbled.write(b"\xff" * 4096)
        capfd.readouterr()
        with pytest.raises(CorruptStore, match="is damaged"):
            store.search(np.ones(DIM), "r", 5)
        assert capfd.readouterr().err == ""


def test_an_engine_error_on_damaged_files_is_a_corrupt_store_too(tmp_path):
    """Some damage makes the engine fail without a panic: a plain Exception ("Service runtime error: vector 0 is not
    readable ..."), which reached the handler as a bug (exit 70)."""
    filled_shard(tmp_path / "shard").close()
    shard_file(shard_of_r(tmp_path / "shard"), "segments/*/vector_storage/vectors/chunk_0.mmap").write_bytes(b"")
    with pytest.raises(CorruptStore, match="is damaged .its engine failed: Service runtime error: vector 0 is "
                                           "not readable"):
        EdgeVectorStore(tmp_path / "shard", DIM).search(np.ones(DIM), "r", 5)


def test_a_store_id_file_of_garbage_bytes_gives_the_store_a_new_id(tmp_path):
    """An id that is not an id (garbage, not even UTF-8) means a store made again, as a missing one does."""
    first = filled_shard(tmp_path / "shard")
    old = first.store_id
    first.close()
    (tmp_path / "shard" / "spider-store-id").write_bytes(b"\xff\xfe garbage")

    store = EdgeVectorStore(tmp_path / "shard", DIM)
    try:
        assert store.store_id != old and len(store.store_id) == 32
    finally:
        store.close()


# ---- as users meet it: spider index, spider-query, spider mcp ----------------------------------------------------


@dataclass(frozen=True)
class Damaged:
    env: dict[str, str]  # a SPIDER_HOME of its own (its vector store is damaged, not the shared one) and the test Neo4j
    repo: str
    root: Path
    shard: Path


@pytest.fixture(scope="module")
def damaged(tmp_path_factory, neo4j_settings) -> Damaged:
    """The shop indexed into a SPIDER_HOME of its own, whose vector store is then damaged."""
    home = tmp_path_factory.mktemp("damaged-home")
    env = {**os.environ, "SPIDER_HOME": str(home), "NEO4J_URI": neo4j_settings.uri, "NEO4J_USER": neo4j_settings.user,
           "NEO4J_PASSWORD": neo4j_settings.password, "RUST_BACKTRACE": "1"}
    model = build_tiny_model(tmp_path_factory.mktemp("tiny-model"))
    succeeded(run(["spider", "models", "register", TEST_MODEL, model, "--dim", "32", "--pooling", "mean"], env))
    root, _ = make_repo(tmp_path_factory.mktemp("shop") / "repo", PYTHON.files)
    repo = unique_name()
    succeeded(run(["spider", "index", root, "--repo", repo], env))
    (collection,) = (home / "vectors").iterdir()
    shard = EdgeVectorStore(collection, 32).shard_directory(repo)
    shard_file(shard, UNREADABLE).write_bytes(b"")
    return Damaged(env, repo, root, shard)


def run(command: list[object], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([str(part) for part in command], capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("program, args", [
    ("spider-query", lambda d: [ISSUE, "--repo", d.repo, "--selector", "learned"]),
    ("spider", lambda d: ["index", d.root, "--repo", d.repo, "--force"]),
])
def test_a_command_on_a_damaged_store_fails_in_one_line_that_says_how_to_rebuild_it(damaged, program, args):
    result = run([program, *args(damaged)], damaged.env)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        f"{program}: error: the local vector store {damaged.shard} is damaged (its engine failed: index out of bounds: "
        f"the len is 0 but the index is 0): {REBUILD}"]


def test_the_mcp_server_answers_a_damaged_store_with_a_tool_error_and_lives_on(damaged, monkeypatch):
    for name in ("SPIDER_HOME", "NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD"):
        monkeypatch.setenv(name, damaged.env[name])

    async def session(client):
        arguments = {"issue": ISSUE, "repo": damaged.repo, "selector": "learned"}
        return await client.call_tool("localize", arguments), await client.call_tool("repos", {})

    with open_stores() as stores:
        localized, repos = run_bounded(lambda: call_tools(build_server(stores), session), seconds=60)
    assert error_text(localized) == f"Error executing tool localize: the local vector store {damaged.shard} is " \
                                    f"damaged (its engine failed: index out of bounds: the len is 0 but the index is " \
                                    f"0): {REBUILD}"
    assert damaged.repo in {entry["repo"] for entry in structured(repos)["repositories"]}
