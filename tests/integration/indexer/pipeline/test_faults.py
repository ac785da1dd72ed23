"""Faults a production index run meets: the process killed with SIGKILL at each stage, a submodule, 20,000 files.

A killed run must leave nothing a query can see, and the next run must build exactly what a clean run builds.
The kill is a real SIGKILL of a separate process, sent by the process itself at a chosen point of the real
pipeline (the first progress step of a stage, or the last write), so every stage is hit deterministically.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from spider.indexer.graph.snapshot_diff import read_contents

from tests.fixtures.gitrepo import git, make_repo
from tests.integration.helpers import invoke_index_json, invoke_spider, succeeded, unique_name

# Runs index_repository as `spider index` does and SIGKILLs itself at the first step of the stage named by
# argv[3] ("complete": as the snapshot is about to be marked complete, after every other write).
KILLER = """
import os, signal, sys
from spider.indexer.graph import neo4j_local
from spider.indexer.graph.store import GraphStore
from spider.indexer.pipeline.index import index_repository
from spider.core.settings import Settings

path, repo, stage = sys.argv[1:4]

def progress(label, total):
    def advance(n):
        if label == stage:
            os.kill(os.getpid(), signal.SIGKILL)
    return advance

if stage == "complete":
    GraphStore.complete_snapshot = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)
with neo4j_local.open_graph(Settings.from_env()) as store:
    index_repository(store, path, repo=repo, progress=progress)
sys.exit(3)  # the stage never started
"""
STAGES = ["parsing", "writing nodes", "writing relationships", "embedding functions", "complete"]


def module(index: int) -> str:
    """A module of five functions calling each other and the previous module: ~2,500 nodes in 400 files, so
    the write runs in several batches and a kill lands between them."""
    head = f"from pkg.m{index - 1} import f0 as previous\n\n\n" if index else ""
    body = "".join(f"def f{i}(x):\n    return {'previous(x)' if i == 0 and index else f'f{i - 1}(x) + {i}' if i else 'x'}\n\n\n"
                   for i in range(5))
    return head + body


@pytest.fixture(scope="module")
def layered(tmp_path_factory: pytest.TempPathFactory, neo4j_settings) -> tuple[Path, str, str]:
    """(repository, commit, the name it is indexed under by a clean run)."""
    root, sha = make_repo(tmp_path_factory.mktemp("layered") / "repo",
                          {f"pkg/m{i}.py": module(i) for i in range(400)} | {"pkg/__init__.py": ""})
    clean = unique_name()
    invoke_index_json(root, clean)
    return root, sha, clean


def snapshot_rows(repo: str) -> list[dict]:
    return json.loads(succeeded(invoke_spider("snapshots", "list", "--repo", repo, "--json")))


@pytest.mark.parametrize("stage", STAGES)
def test_a_run_killed_at_each_stage_is_invisible_and_the_next_run_equals_a_clean_one(stage, layered, store):
    root, sha, clean = layered
    killed = unique_name()
    run = subprocess.run([sys.executable, "-c", KILLER, str(root), killed, stage], capture_output=True, text=True,
                         timeout=300, env=os.environ)
    assert run.returncode == -signal.SIGKILL, (stage, run.returncode, run.stderr[-2000:])

    assert all(not row["complete"] for row in snapshot_rows(killed))  # nothing a query trusts
    refused = invoke_spider("cypher", "callers", "--repo", killed, "--param", "id=pkg/m1.py:f0")
    assert refused.returncode != 0 and "Traceback" not in refused.stderr

    again = invoke_index_json(root, killed)
    assert not again["already_indexed"]
    assert [row["complete"] for row in snapshot_rows(killed)] == [True]
    assert read_contents(store, killed, sha).without_repo() == read_contents(store, clean, sha).without_repo()
    embedded = again["embedding"]
    assert embedded["embedded"] + embedded["reused"] == again["nodes"]["Function"] == 2000


def test_a_submodule_is_skipped_and_counted_and_its_files_never_read(tmp_path, store):
    inner, _ = make_repo(tmp_path / "inner", {"lib.py": "def inside_the_submodule():\n    return 1\n"})
    root, _ = make_repo(tmp_path / "outer", {"app.py": "def outside():\n    return 2\n"})
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "vendored_lib")
    git(root, "commit", "-q", "-m", "add a submodule")
    name = unique_name()
    summary = invoke_index_json(root, name)
    assert summary["skipped"] == {"submodule": 1}
    functions = store.read("MATCH (f:Function {repo: $repo}) RETURN f.id", {"repo": name})[1]
    assert functions == [["app.py:outside"]]


def test_twenty_thousand_tiny_files_index_whole(tmp_path, store):
    files = {f"d{i // 500}/f{i}.py": f"def f{i}():\n    return {i}\n" for i in range(20_000)}
    root, _ = make_repo(tmp_path / "many", files)
    name = unique_name()
    summary = invoke_index_json(root, name)
    assert summary["files_parsed"] == 20_000
    assert summary["nodes"]["Function"] == 20_000 and summary["nodes"]["File"] == 20_000
    assert summary["embedding"]["embedded"] == 20_000
