"""A full disk under the local vector store, for real: a small tmpfs mounted as SPIDER_HOME/vectors and filled.

Qdrant Edge writes through memory-mapped files, and a process that touches a page the disk has no room for is
killed with SIGBUS (exit 135, nothing said). spider checks the room first: `spider index` and `spider-query` fail
in one line that names the store, its free space and what it needs; a query runs where a read has room though
an index run has not; and once space is freed, the next `spider index` builds what a clean run builds.

Mounting needs root; elsewhere that test skips, except where SPIDER_REQUIRE_TMPFS is set (.ci/run sets it). The
checks themselves are also tested everywhere, with the free space the store sees set by the test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import spider.indexer.vectors.edge as edge_module
from spider.core.errors import OutOfSpace
from spider.indexer.disk_space import free_bytes
from spider.indexer.graph.snapshot_diff import read_contents
from spider.indexer.vectors.edge import EdgeVectorStore
from spider.indexer.vectors.store import collection_name

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import PYTHON
from tests.integration.conftest import TEST_MODEL
from tests.integration.helpers import ISSUE, index_json, succeeded, unique_name
from tests.integration.query.retrieve.test_retrieval import machine, run_on

REQUIRE = "SPIDER_REQUIRE_TMPFS"  # set by .ci/run, which runs as root: there a tmpfs that cannot be mounted fails
DISK = "128M"  # room for the shop's store (~40 MiB once loaded) and nothing much more
MIB = 1 << 20
ADDED = {"shop/refunds.py": "def refund_partial_order(order, amount):\n    return order.total() - amount\n"}


def mount_tmpfs(point: Path) -> str | None:
    """Mount a DISK-sized tmpfs at `point`; None, or why it cannot be done here."""
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root"
    if shutil.which("mount") is None:
        return "no mount command"
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK},mode=0700", "tmpfs", str(point)],
                             capture_output=True, text=True)
    return f"cannot mount a tmpfs: {mounted.stderr.strip()}" if mounted.returncode else None


@pytest.fixture
def vectors_disk(tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs mounted as the vector store folder of the SPIDER_HOME tmp_path/"home"; unmounted after."""
    point = tmp_path / "home" / "vectors"
    point.mkdir(parents=True)
    reason = mount_tmpfs(point)
    if reason:
        if os.environ.get(REQUIRE):
            pytest.fail(f"{REQUIRE} is set, but {reason}")
        pytest.skip(reason)
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], check=True)


def leave_free(disk: Path, free: int) -> None:
    """Fill `disk` with one file until about `free` bytes are left (tmpfs gives what posix_fallocate asks)."""
    filler = disk / "filler"
    filler.unlink(missing_ok=True)
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os.posix_fallocate(descriptor, 0, free_bytes(disk) - free)
    finally:
        os.close(descriptor)


def out_of_space(result: subprocess.CompletedProcess, program: str, store: Path) -> tuple[float, str, float]:
    """(MiB free, what was refused, MiB it needs) of a one-line out-of-space error, exit 2 (not SIGBUS)."""
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and result.stdout == "" and len(lines) == 1, (result.returncode, result.stderr)
    found = re.fullmatch(rf"{program}: error: the local vector store {re.escape(str(store))} has ([\d,.]+) MiB "
                         r"free, and (.+) needs about ([\d,.]+) MiB: free space on its disk, then run again", lines[0])
    assert found, lines[0]
    free, refused, needed = float(found[1].replace(",", "")), found[2], float(found[3].replace(",", ""))
    assert free < needed, lines[0]
    return free, refused, needed


def test_a_full_disk_under_the_vector_store_is_one_line_and_the_run_after_freeing_it_is_whole(
        tmp_path, vectors_disk, store, spider_home, neo4j_settings):
    env = machine(tmp_path / "home", spider_home, neo4j_settings)
    repo = unique_name()
    root, first = make_repo(tmp_path / "repo", PYTHON.files)
    succeeded(run_on(env, "spider", "index", str(root), "--repo", repo))
    _, second = make_repo(root, ADDED, "add refunds")
    shard = vectors_disk / collection_name(TEST_MODEL, 32)
    query = ("spider-query", ISSUE, "--repo", repo, "--method", "der", "--json")
    index = ("spider", "index", str(root), "--repo", repo, "--json")

    leave_free(vectors_disk, 0)
    _, refused, needed = out_of_space(run_on(env, *query), "spider-query", shard)
    assert refused == "opening it"
    assert out_of_space(run_on(env, *index), "spider", shard)[1] == "opening it"

    leave_free(vectors_disk, round((needed + 1) * MIB))  # room to read, none to store and index vectors
    assert json.loads(succeeded(run_on(env, *query)))["snapshot"] == first
    assert out_of_space(run_on(env, *index), "spider", shard)[1] == "storing and indexing 1 vector"
    listed = json.loads(succeeded(run_on(env, "spider", "snapshots", "list", "--repo", repo, "--json")))
    assert {row["snapshot"]: row["complete"] for row in listed}.get(second) is not True
    assert json.loads(succeeded(run_on(env, *query)))["snapshot"] == first  # the failed run shows nowhere

    (vectors_disk / "filler").unlink()
    again = json.loads(succeeded(run_on(env, *index)))
    assert not again["already_indexed"]
    assert again["embedding"]["embedded"] + again["embedding"]["reused"] == again["nodes"]["Function"]
    clean = unique_name()
    index_json(root, clean)
    assert read_contents(store, repo, second).without_repo() == read_contents(store, clean, second).without_repo()
    assert json.loads(succeeded(run_on(env, *query)))["snapshot"] == second
    assert json.loads(succeeded(run_on(env, *index)))["already_indexed"]  # the store holds every vector


def points(start: int, end: int) -> list:
    rng = np.random.default_rng(start)
    return [(f"hash{i}", rng.standard_normal(32), {"node_id": f"f{i}"}) for i in range(start, end)]


def with_free(monkeypatch: pytest.MonkeyPatch, free: int, holes_take_space: bool = False) -> None:
    """What the store sees of its disk from now on: `free` bytes, and whether reading a hole takes a page."""
    monkeypatch.setattr(edge_module, "free_bytes", lambda path: free)
    monkeypatch.setattr(edge_module, "reading_holes_takes_space", lambda path: holes_take_space)


def test_an_edge_write_without_room_fails_before_it_starts_and_the_wal_keeps_what_was_written(tmp_path, monkeypatch):
    shard = EdgeVectorStore(tmp_path / "shard", 32)
    try:
        shard.insert("r", points(0, 10))
        with_free(monkeypatch, MIB)
        writes = {"storing 10 vectors": lambda: shard.insert("r", points(10, 20)),
                  "storing and indexing 10 vectors": lambda: shard.reserve("r", 10),
                  "indexing its vectors": lambda: shard.build_index("r"),
                  "deleting 10 vectors": lambda: shard.delete_unused("r", set())}
        for refused, write in writes.items():
            with pytest.raises(OutOfSpace, match=rf"has 1\.0 MiB free, and {refused} needs about [\d.]+ MiB"):
                write()
        assert shard.count("r") == 10
    finally:
        shard.close()  # no room to flush either: its WAL holds the ten points
    monkeypatch.undo()
    with EdgeVectorStore(tmp_path / "shard", 32) as again:
        assert again.count("r") == 10


def test_a_read_needs_room_for_the_holes_a_load_fills_only_where_reading_a_hole_takes_a_page(tmp_path, monkeypatch):
    with EdgeVectorStore(tmp_path / "shard", 32) as shard:
        shard.insert("r", points(0, 10))

    with_free(monkeypatch, MIB)  # a disk: a read opens with 1 MiB free
    with EdgeVectorStore(tmp_path / "shard", 32) as shard:
        assert shard.count("r") == 10
    with_free(monkeypatch, MIB, holes_take_space=True)  # tmpfs: the load would fill the vectors' 32 MiB chunk
    with pytest.raises(OutOfSpace, match=r"has 1\.0 MiB free, and opening it needs about ([\d.]+) MiB") as refused:
        EdgeVectorStore(tmp_path / "shard", 32).count("r")
    assert float(re.search(r"about ([\d.]+) MiB", str(refused.value))[1]) > 32
