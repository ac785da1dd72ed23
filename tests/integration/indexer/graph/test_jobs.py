"""Index jobs in the graph: a stalled job is claimed by one sweeper at a time, and a finished job stays finished
whatever stray task of it runs later."""

from __future__ import annotations

import time

from spider.indexer.graph import jobs

PLAN = jobs.JobPlan(embed=True, model=None, base=None)


def claimed(store, idle_seconds: int, job_id: str) -> bool:
    return job_id in {row["id"] for row in jobs.claim_stalled(store, idle_seconds)}


def test_an_idle_job_is_claimed_once_per_idle_period_and_a_busy_one_not_at_all(store, repo_name):
    idle, busy = jobs.new_job_id(), jobs.new_job_id()
    jobs.create_job(store, idle, repo_name, "HEAD", "1" * 40, "/repo", 3, PLAN)
    jobs.create_job(store, busy, f"{repo_name}-busy", "HEAD", "2" * 40, "/repo", 3, PLAN)
    time.sleep(2.2)
    jobs.batch_done(store, busy, 0, 1)

    assert claimed(store, 2, idle) and not claimed(store, 2, busy)
    assert not claimed(store, 2, idle)  # the claim counts as a move: nobody else sends its tasks now
    (row,) = [r for r in jobs.claim_stalled(store, 0) if r["id"] == idle]
    assert (row["repo"], row["commit"], row["path"], row["embed"], row["base"]) == (repo_name, "1" * 40, "/repo",
                                                                                    True, None)


def test_finished_and_planless_jobs_are_never_claimed(store, repo_name):
    done, failed, manifest = jobs.new_job_id(), jobs.new_job_id(), jobs.new_job_id()
    jobs.create_job(store, done, repo_name, "HEAD", "3" * 40, "/repo", 1, PLAN)
    jobs.create_job(store, failed, f"{repo_name}-failed", "HEAD", "4" * 40, "/repo", 1, PLAN)
    jobs.create_job(store, manifest, f"{repo_name}-manifest", "main", "", "https://git.example/r", 0)
    jobs.set_stage(store, done, "done")
    jobs.cancel_job(store, failed)

    assert not {done, failed, manifest} & {row["id"] for row in jobs.claim_stalled(store, 0)}


def test_a_stray_task_of_a_finished_job_does_not_move_it(store, repo_name):
    done, cancelled = jobs.new_job_id(), jobs.new_job_id()
    jobs.create_job(store, done, repo_name, "HEAD", "5" * 40, "/repo", 2, PLAN)
    jobs.create_job(store, cancelled, f"{repo_name}-cancelled", "HEAD", "6" * 40, "/repo", 2, PLAN)
    jobs.batch_done(store, done, 0, 2)
    jobs.set_stage(store, done, "done")
    jobs.cancel_job(store, cancelled)

    for job in (done, cancelled):  # a redelivered or resent batch, write and embedding run after the end
        jobs.batch_done(store, job, 1, 2)
        jobs.set_stage(store, job, "writing")
    (after_done,), (after_cancel,) = jobs.list_jobs(store, done), jobs.list_jobs(store, cancelled)
    assert (after_done["state"], after_done["stage"], after_done["files_done"]) == ("done", "done", 2)
    assert (after_cancel["state"], after_cancel["files_done"]) == ("failed", 0)
