"""The Celery chord (run eagerly: no broker configured) writes the same graph as the local pipeline and records
its job."""

from __future__ import annotations

from spider.indexer.distributed import tasks
from spider.indexer.graph import jobs
from spider.indexer.pipeline import stages
from spider.indexer.pipeline.index import index_repository

from tests.fixtures.gitrepo import make_repo
from tests.fixtures.shop import FIXTURES
from tests.integration.helpers import read_graph


def _canonical(graph: tuple[list[dict], list[dict]]) -> tuple[list[str], list[str]]:
    return sorted(map(repr, graph[0])), sorted(map(repr, graph[1]))


def test_eager_chord_writes_the_same_graph_as_the_local_run(tmp_path, store, repo_name, monkeypatch):
    monkeypatch.setattr(stages, "BATCH_FILES", 2)  # several parse tasks in the chord
    files = {**FIXTURES["python"].files, **FIXTURES["java"].files}
    root, sha = make_repo(tmp_path / "repo", files)
    assert tasks.app.conf.task_always_eager

    job_id, outcome = tasks.index_commit(str(root), repo=f"{repo_name}-celery")
    result = outcome.get()
    index_repository(store, str(root), repo=f"{repo_name}-local")

    assert result["snapshot"] == sha and result["files_parsed"] == 11 and result["embedding"]["functions"] > 0
    (job,) = jobs.list_jobs(store, job_id)
    assert (job["state"], job["stage"], job["files_done"], job["files_total"]) == ("done", "done", 12, 12)  # files selected; 11 kept entities
    celery_graph = read_graph(store, f"{repo_name}-celery", sha)
    local_graph = read_graph(store, f"{repo_name}-local", sha)
    assert celery_graph[0] and _canonical(celery_graph) == _canonical(local_graph)
    assert store.snapshot_state(f"{repo_name}-celery", sha).complete is True


def test_eager_chord_indexes_a_new_commit_incrementally_and_equals_the_full_rebuild(tmp_path, store, repo_name,
                                                                                   monkeypatch):
    monkeypatch.setattr(stages, "BATCH_FILES", 2)
    root, first = make_repo(tmp_path / "repo", {**FIXTURES["python"].files})
    tasks.index_commit(str(root), repo=repo_name)[1].get()
    changed = next(iter(FIXTURES["python"].files))
    _, second = make_repo(root, {changed: FIXTURES["python"].files[changed] + "\n\ndef added():\n    return 1\n"}, "edit")

    job_id, outcome = tasks.index_commit(str(root), repo=repo_name, rev=second)
    result = outcome.get()
    index_repository(store, str(root), repo=f"{repo_name}-full", rev=second, full=True)

    assert result["incremental"]["base"] == first and result["incremental"]["files_reparsed"] == 1
    (job,) = jobs.list_jobs(store, job_id)
    assert job["files_total"] == 1  # only the changed file went to the parse tasks
    assert _canonical(read_graph(store, repo_name, second)) == _canonical(read_graph(store, f"{repo_name}-full", second))
