"""Distributed indexing with a real broker: `spider index --async` enqueues, `spider worker` processes run the
chord over Redis, `spider jobs` follows them; the graph equals the in-process run's, and a job that fails says
why."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from indexer.pipeline import index_repository
from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import FIXTURES
from tests.integration.test_cli import run_spider, succeeded
from tests.integration.test_index_graph import read_graph

pytestmark = pytest.mark.integration


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory) -> str:
    """A throwaway redis-server (Debian's; `deploy/quickstart.sh --setup-only` installs it)."""
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed: run deploy/quickstart.sh --setup-only")
    port = free_port()
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", str(tmp_path_factory.mktemp("redis"))],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            time.sleep(0.1)
    else:
        server.kill()
        pytest.fail("redis-server did not answer PING")
    yield f"redis://127.0.0.1:{port}/0"
    server.terminate()
    server.wait(10)


class Workers:
    """`spider worker` processes consuming every queue of one broker."""

    def __init__(self, broker: str, log: Path) -> None:
        self.env = {**os.environ, "SPIDER_BROKER_URL": broker}
        self.log = log
        self.processes: list[subprocess.Popen] = []

    def start(self, concurrency: int = 2, env: dict[str, str] | None = None) -> subprocess.Popen:
        handle = self.log.open("a")
        process = subprocess.Popen(["spider", "worker", "-c", str(concurrency), "--loglevel", "WARNING"],
                                   env={**self.env, **(env or {})}, stdout=handle, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.processes.append(process)
        return process

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture
def workers(redis_url, tmp_path) -> Workers:
    pool = Workers(redis_url, tmp_path / "workers.log")
    yield pool
    pool.stop()


def wait_for_job(job_id: str, broker: str, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = json.loads(succeeded(run_spider("jobs", job_id, "--json", env={"SPIDER_BROKER_URL": broker})))
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(1)
    raise AssertionError(f"job {job_id} still {job['state']} / {job['stage']} after {timeout} s")


def enqueue(root: Path, repo: str, broker: str) -> str:
    out = json.loads(succeeded(run_spider("index", root, "--repo", repo, "--async", "--json",
                                          env={"SPIDER_BROKER_URL": broker})))
    return out["job"]


def test_workers_index_what_the_local_run_indexes_and_jobs_follow_them(tmp_path, store, repo_name, workers,
                                                                       redis_url):
    files = {**FIXTURES["python"].files, **FIXTURES["java"].files, **FIXTURES["javascript"].files}
    root, sha = make_repo(tmp_path / "repo", files)
    workers.start(concurrency=2)

    job_id = enqueue(root, f"{repo_name}-workers", redis_url)
    job = wait_for_job(job_id, redis_url)

    assert job["state"] == "done" and job["stage"] == "done" and job["errors"] == [], workers.log.read_text()
    assert job["files_done"] == job["files_total"] > 0 and job["snapshot"] == sha
    index_repository(store, str(root), repo=f"{repo_name}-local")
    distributed, local = read_graph(store, f"{repo_name}-workers", sha), read_graph(store, f"{repo_name}-local", sha)
    assert distributed[0] and sorted(map(repr, distributed[0])) == sorted(map(repr, local[0]))
    assert sorted(map(repr, distributed[1])) == sorted(map(repr, local[1]))
    state = store.snapshot_state(f"{repo_name}-workers", sha)
    assert state["complete"] and state["stats"]["embedding"]["functions"] > 0
    listing = succeeded(run_spider("jobs"))
    assert job_id in listing and "done" in listing and f"{job['files_total']}/{job['files_total']}" in listing
    again = succeeded(run_spider("index", root, "--repo", f"{repo_name}-workers", "--async",
                                 env={"SPIDER_BROKER_URL": redis_url}))
    assert "already indexed" in again


def test_a_job_that_fails_reports_its_error(tmp_path, store, repo_name, workers, redis_url):
    root, sha = make_repo(tmp_path / "repo", FIXTURES["python"].files)
    job_id = enqueue(root, repo_name, redis_url)
    shutil.rmtree(root)  # gone before any worker reads it
    workers.start(concurrency=1)

    job = wait_for_job(job_id, redis_url)

    assert job["state"] == "failed" and job["errors"] and "spider.parse_batch" in job["errors"][0], job
    assert store.snapshot_state(repo_name, sha) is None  # nothing half-written is visible


@pytest.mark.parametrize("args, message", [
    (("worker",), "a worker needs a broker: set SPIDER_BROKER_URL"),
    (("index", ".", "--async"), "--async needs a broker"),
    (("jobs", "no-such-job"), "no job no-such-job"),
])
def test_distributed_commands_fail_in_one_line(args, message):
    result = run_spider(*args, env={"SPIDER_BROKER_URL": ""})
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and message in lines[0], result.stderr


def test_worker_rejects_unknown_queues(redis_url):
    result = run_spider("worker", "--queues", "parse,gpu", env={"SPIDER_BROKER_URL": redis_url})
    assert result.returncode == 2 and "unknown queue(s) gpu" in result.stderr
