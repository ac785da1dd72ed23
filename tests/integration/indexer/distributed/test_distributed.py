"""Distributed indexing with a real broker: `spider index --async` enqueues, `spider worker` processes run the
chord over Redis, `spider jobs` follows them; the graph equals the in-process run's, and a job that fails says
why. The commands that reach the broker run as processes of their own (Celery's app is configured once per process,
from the environment); `spider jobs`, which reads the graph only, runs in this process."""

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
import redis
from spider.core.settings import Settings
from spider.indexer.graph import jobs, neo4j_local
from spider.indexer.models.embedding import open_embedder
from spider.indexer.pipeline.index import index_repository
from spider.indexer.vectors.open_store import open_vector_store
from spider.indexer.vectors.store import EDGE_LOCK_WAIT

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import FIXTURES
from tests.integration.helpers import invoke_spider, read_graph, run_spider, succeeded

WRITTEN = """
MATCH (n:Directory|File|Class|Function {repo: $repo})
RETURN count(n) + sum(COUNT { (n)-->() }) AS n
"""  # the nodes and relationships of every version of a repository's graph


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_free(port: int) -> bool:
    """Whether a server could listen on 127.0.0.1:`port` now (as Neo4j binds: TIME_WAIT connections do not count)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


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

    def start(self, concurrency: int = 2, env: dict[str, str] | None = None,
              loglevel: str = "WARNING") -> subprocess.Popen:
        handle = self.log.open("a")
        process = subprocess.Popen(["spider", "worker", "-c", str(concurrency), "--loglevel", loglevel],
                                   env={**self.env, **(env or {})}, stdout=handle, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.processes.append(process)
        return process

    def stop(self) -> None:
        """Celery's warm shutdown: SIGTERM to each worker's main process, which lets its running tasks finish (a
        SIGTERM to the whole process group killed pool children mid-write to the local vector store); what is
        left after 30 s is killed."""
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.fixture
def workers(redis_url, tmp_path) -> Workers:
    """Workers of one test; the broker is emptied first, so no task an earlier test left queued reaches them."""
    redis.Redis.from_url(redis_url).flushdb()
    pool = Workers(redis_url, tmp_path / "workers.log")
    yield pool
    pool.stop()


def wait_for_job(job_id: str, broker: str, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = json.loads(succeeded(invoke_spider("jobs", job_id, "--json", env={"SPIDER_BROKER_URL": broker})))
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(1)
    raise AssertionError(f"job {job_id} still {job['state']} / {job['stage']} after {timeout} s")


def enqueue(root: Path, repo: str, broker: str) -> str:
    out = json.loads(succeeded(run_spider("index", root, "--repo", repo, "--async", "--json",
                                          env={"SPIDER_BROKER_URL": broker})))
    return out["job"]


def enqueue_manifest(tmp_path: Path, entries: list[str], broker: str) -> list[dict]:
    """`spider org index` of a manifest listing `entries` (YAML mappings); fetched repositories go to a cache under
    tmp_path. Its outcome per repository."""
    manifest = tmp_path / "org.yaml"
    manifest.write_text("repos:\n" + "".join(f"  - {entry}\n" for entry in entries))
    env = {"SPIDER_BROKER_URL": broker, "SPIDER_REPO_CACHE": str(tmp_path / "cache")}
    return json.loads(succeeded(run_spider("org", "index", manifest, "--json", env=env)))


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
    assert state.complete and state.embedding.functions > 0
    listing = succeeded(invoke_spider("jobs"))
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


def many_modules(count: int) -> dict[str, str]:
    """`count` Python modules, each calling into the previous one: enough parse batches to die in the middle."""
    files = {"pkg/__init__.py": ""}
    for i in range(count):
        previous = f"from pkg.m{i - 1} import helper_{i - 1}\n" if i else ""
        call = f"helper_{i - 1}(x)" if i else "x"
        files[f"pkg/m{i}.py"] = (f"{previous}\n\ndef helper_{i}(x):\n    return {call}\n\n\n"
                                 f"class Thing{i}:\n    def run(self, x):\n        return helper_{i}(x)\n")
    return files


def test_a_worker_killed_mid_job_has_its_tasks_redelivered_and_the_graph_is_whole(tmp_path, store, repo_name,
                                                                                   redis_url):
    root, sha = make_repo(tmp_path / "repo", many_modules(600))
    pool = Workers(redis_url, tmp_path / "workers.log")
    # Longer than any task of this job takes here (else a running task is handed out twice), short for a test:
    # the dead worker's tasks come back within about 1.1x this.
    fast = {"SPIDER_VISIBILITY_TIMEOUT": "45"}
    try:
        doomed = pool.start(concurrency=1, env=fast)
        job_id = enqueue(root, f"{repo_name}-killed", redis_url)
        deadline = time.monotonic() + 120
        while True:  # SIGKILL the whole worker (main process and pool) once some batches are done, not all
            (job,) = jobs.list_jobs(store, job_id)
            if 0 < job["files_done"] < job["files_total"]:
                break
            assert job["state"] != "done" and time.monotonic() < deadline, "the job finished before the kill"
            time.sleep(0.05)
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.wait(10)
        done_at_kill = job["files_done"]
        pool.start(concurrency=2, env=fast)

        job = wait_for_job(job_id, redis_url, timeout=300)
    finally:
        pool.stop()

    assert job["state"] == "done" and job["errors"] == [], pool.log.read_text()[-3000:]
    assert done_at_kill < job["files_done"] == job["files_total"]  # redelivered batches counted once
    index_repository(store, str(root), repo=f"{repo_name}-clean")
    killed, clean = read_graph(store, f"{repo_name}-killed", sha), read_graph(store, f"{repo_name}-clean", sha)
    assert len(killed[0]) > 1800 and sorted(map(repr, killed[0])) == sorted(map(repr, clean[0]))
    assert sorted(map(repr, killed[1])) == sorted(map(repr, clean[1]))


def test_a_job_whose_task_message_was_lost_is_sent_again(tmp_path, store, repo_name, workers, redis_url):
    """kombu's Redis transport pops a message before it records it as unacknowledged, so a worker killed in
    between loses it for good (kombu#305) and the job would wait forever. Workers that find the queues empty and
    a job idle for longer than any redelivery takes send its tasks again."""
    root, sha = make_repo(tmp_path / "repo", many_modules(200))
    job_id = enqueue(root, f"{repo_name}-lost", redis_url)
    broker = redis.Redis.from_url(redis_url)
    ours = [m for m in broker.lrange("parse", 0, -1) if job_id in json.loads(m)["headers"]["kwargsrepr"]]
    assert len(ours) == 4 and broker.lrem("parse", 1, ours[-1]) == 1  # the next batch, lost on its way
    workers.start(concurrency=2, env={"SPIDER_VISIBILITY_TIMEOUT": "10"})

    job = wait_for_job(job_id, redis_url, timeout=240)

    assert job["state"] == "done" and job["errors"] == [], workers.log.read_text()[-3000:]
    assert job["files_done"] == job["files_total"] == 201
    index_repository(store, str(root), repo=f"{repo_name}-clean")
    lost, clean = read_graph(store, f"{repo_name}-lost", sha), read_graph(store, f"{repo_name}-clean", sha)
    assert len(lost[0]) > 600 and sorted(map(repr, lost[0])) == sorted(map(repr, clean[0]))
    assert sorted(map(repr, lost[1])) == sorted(map(repr, clean[1]))


def test_the_same_snapshot_enqueued_twice_at_once_is_one_job(tmp_path, store, repo_name, workers, redis_url):
    root, sha = make_repo(tmp_path / "repo", FIXTURES["python"].files)
    env = {**os.environ, "SPIDER_BROKER_URL": redis_url}
    command = ["spider", "index", str(root), "--repo", repo_name, "--async", "--json"]
    racing = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(3)]
    answers = [json.loads(process.communicate(timeout=120)[0]) for process in racing]

    assert len({a["job"] for a in answers}) == 1, answers
    assert sorted(a["already_queued"] for a in answers) == [False, True, True]
    workers.start(concurrency=2)
    job = wait_for_job(answers[0]["job"], redis_url)
    assert job["state"] == "done" and len(jobs.list_jobs(store, None, 500)) >= 1
    assert sum(1 for j in jobs.list_jobs(store, None, 500) if j["repo"] == repo_name) == 1
    assert store.snapshot_state(repo_name, sha).complete
    forced = json.loads(succeeded(run_spider("index", root, "--repo", repo_name, "--async", "--json", "--force",
                                             env={"SPIDER_BROKER_URL": redis_url})))
    assert forced["job"] != job["id"] and not forced["already_queued"]  # a finished job frees its snapshot
    assert wait_for_job(forced["job"], redis_url)["state"] == "done"


def test_a_cancelled_job_frees_its_snapshot(tmp_path, repo_name, redis_url):
    root, _ = make_repo(tmp_path / "repo", FIXTURES["java"].files)
    first = enqueue(root, repo_name, redis_url)  # no worker: it stays queued
    cancelled = json.loads(succeeded(invoke_spider("jobs", first, "--cancel", "--json")))
    assert cancelled["state"] == "failed" and "cancelled" in cancelled["errors"][0]
    assert enqueue(root, repo_name, redis_url) != first


@pytest.mark.parametrize("args", [("worker",), ("index", ".", "--async")])
def test_an_unreachable_broker_is_a_one_line_error_and_records_no_job(args, store):
    before = len(jobs.list_jobs(store, None, 10_000))
    result = run_spider(*args, env={"SPIDER_BROKER_URL": f"redis://127.0.0.1:{free_port()}/0"})
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "cannot reach the Celery broker" in lines[0], result.stderr
    assert len(jobs.list_jobs(store, None, 10_000)) == before


def test_workers_index_a_manifest_and_one_bad_repository_fails_alone(tmp_path, store, repo_name, workers, redis_url):
    python, python_sha = make_repo(tmp_path / "py", FIXTURES["python"].files)
    java, java_sha = make_repo(tmp_path / "java", FIXTURES["java"].files)
    outcomes = enqueue_manifest(tmp_path, [f"{{path: {python}, name: {repo_name}-py}}",
                                           f'{{url: "file://{java}", name: {repo_name}-java}}',
                                           f'{{url: "file://{tmp_path}/missing.git", name: {repo_name}-missing}}'],
                                redis_url)
    assert [o["status"] for o in outcomes] == ["queued"] * 3
    workers.start(concurrency=2, env={"SPIDER_REPO_CACHE": str(tmp_path / "cache")})

    parents = {o["repo"]: wait_for_job(o["job"], redis_url) for o in outcomes}

    assert parents[f"{repo_name}-missing"]["state"] == "failed"
    assert "cannot fetch" in parents[f"{repo_name}-missing"]["errors"][0]
    for repo, sha in ((f"{repo_name}-py", python_sha), (f"{repo_name}-java", java_sha)):
        (child,) = parents[repo]["children"]
        assert wait_for_job(child, redis_url)["state"] == "done" and store.snapshot_state(repo, sha).complete


def test_a_lost_fetch_is_sent_again_unless_its_url_holds_a_credential(tmp_path, store, repo_name, workers,
                                                                       redis_url):
    """A manifest repository's fetch task can be lost as an index task can. Its entry is kept to send it again,
    except where its URL carries a credential, which no job keeps: that job fails, saying to run it again."""
    python, python_sha = make_repo(tmp_path / "py", FIXTURES["python"].files)
    outcomes = enqueue_manifest(tmp_path, [f"{{path: {python}, name: {repo_name}-py}}",
                                           f'{{url: "https://ci:s3cr3t-t0ken@git.example.invalid/x.git", '
                                           f'name: {repo_name}-token}}'], redis_url)
    broker = redis.Redis.from_url(redis_url)
    ours = [m for m in broker.lrange("write", 0, -1) if repo_name in json.loads(m)["headers"]["argsrepr"]]
    assert len(ours) == 2 and all(broker.lrem("write", 1, m) == 1 for m in ours)  # both lost on their way
    workers.start(concurrency=2, env={"SPIDER_VISIBILITY_TIMEOUT": "10",
                                      "SPIDER_REPO_CACHE": str(tmp_path / "cache")})

    parents = {o["repo"]: wait_for_job(o["job"], redis_url) for o in outcomes}

    (child,) = parents[f"{repo_name}-py"]["children"]
    assert wait_for_job(child, redis_url)["state"] == "done", workers.log.read_text()[-3000:]
    assert store.snapshot_state(f"{repo_name}-py", python_sha).complete
    token = parents[f"{repo_name}-token"]
    assert token["state"] == "failed" and "spider org index" in token["errors"][0], token
    assert "s3cr3t" not in json.dumps(jobs.list_jobs(store, None, 10_000))


def gave_up_on_the_store(log: str) -> bool:
    """Whether the worker's log shows an embed task retried because another process wrote the repository's
    vectors."""
    return any("spider.embed_snapshot" in line and "retry" in line.lower() and "is writing the vectors of"
               in line for line in log.splitlines())


def test_embed_tasks_of_a_repository_wait_their_turn_at_the_local_vector_store(tmp_path, store, repo_name, workers,
                                                                                  redis_url):
    if os.environ.get("QDRANT_URL"):
        pytest.skip("a Qdrant server takes concurrent writers")
    root, sha = make_repo(tmp_path / "repo", FIXTURES["python"].files)
    embedder = open_embedder()
    workers.start(concurrency=1, loglevel="INFO")  # INFO: Celery logs each retry
    with open_vector_store(embedder.name, embedder.dim) as vectors, vectors.writing(repo_name):  # this process
        job_id = enqueue(root, repo_name, redis_url)
        deadline = time.monotonic() + 60
        while jobs.list_jobs(store, job_id)[0]["stage"] != "embedding":
            assert time.monotonic() < deadline, jobs.list_jobs(store, job_id)
            time.sleep(0.2)
        # The task waits EDGE_LOCK_WAIT seconds for the lease, gives up (StoreBusy) and is retried: seen in the log.
        deadline = time.monotonic() + EDGE_LOCK_WAIT + 60
        while not gave_up_on_the_store(workers.log.read_text()):
            assert time.monotonic() < deadline, workers.log.read_text()[-3000:]
            time.sleep(0.2)
        assert jobs.list_jobs(store, job_id)[0]["state"] == "running"
    job = wait_for_job(job_id, redis_url)
    assert job["state"] == "done" and store.snapshot_state(repo_name, sha).complete, workers.log.read_text()


def test_neo4j_crashing_mid_write_is_retried_to_the_same_graph(tmp_path, store, repo_name, redis_url):
    if Settings.from_env().neo4j is not None:
        pytest.skip("restarts the local Neo4j; NEO4J_URI points elsewhere")
    root, sha = make_repo(tmp_path / "repo", many_modules(2500))
    pool = Workers(redis_url, tmp_path / "workers.log")
    try:
        pool.start(concurrency=1)
        job_id = enqueue(root, f"{repo_name}-crash", redis_url)
        deadline = time.monotonic() + 180
        while True:  # into the write: its first batches are in the graph, and the job still writes
            (job,) = jobs.list_jobs(store, job_id)
            written = store.read(WRITTEN, {"repo": f"{repo_name}-crash"})[1][0][0]
            if job["stage"] == "writing" and written > 0:
                break
            assert time.monotonic() < deadline and job["state"] not in ("done", "failed"), job
            time.sleep(0.02)
        server = neo4j_local.status()
        os.kill(server["pid"], signal.SIGKILL)  # a crash, not a shutdown
        deadline = time.monotonic() + 60
        # gone (and reaped, where it is this process's child), its ports free again: else it restarts elsewhere
        while neo4j_local.status()["running"] or not all(map(port_free, (server["port"], server["http_port"]))):
            assert time.monotonic() < deadline, f"Neo4j ({server['pid']}) outlived SIGKILL, or its ports stay taken"
            time.sleep(0.05)
        restarted = neo4j_local.ensure_running()
        assert restarted.uri == server["uri"]  # the same port: the worker's driver reconnects on its retry
        job = wait_for_job(job_id, redis_url, timeout=300)
    finally:
        pool.stop()

    assert job["state"] == "done" and job["errors"] == [], pool.log.read_text()[-3000:]
    assert 0 < written < store.read(WRITTEN, {"repo": f"{repo_name}-crash"})[1][0][0]  # the crash came mid-write
    index_repository(store, str(root), repo=f"{repo_name}-clean")
    crashed, clean = read_graph(store, f"{repo_name}-crash", sha), read_graph(store, f"{repo_name}-clean", sha)
    assert len(crashed[0]) > 7000 and sorted(map(repr, crashed[0])) == sorted(map(repr, clean[0]))  # no duplicates
    assert sorted(map(repr, crashed[1])) == sorted(map(repr, clean[1]))
