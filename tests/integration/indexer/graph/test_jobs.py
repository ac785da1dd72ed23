"""Index jobs in the graph: a finished job stays finished whatever stray task of it runs later."""

from __future__ import annotations

from spider.indexer.graph import jobs


def test_a_stray_task_of_a_finished_job_does_not_move_it(store, repo_name):
    done, cancelled = jobs.new_job_id(), jobs.new_job_id()
    jobs.create_job(store, done, repo_name, "HEAD", "5" * 40, "/repo", 2)
    jobs.create_job(store, cancelled, f"{repo_name}-cancelled", "HEAD", "6" * 40, "/repo", 2)
    jobs.batch_done(store, done, 0, 2)
    jobs.set_stage(store, done, "done")
    jobs.cancel_job(store, cancelled)

    for job in (done, cancelled):  # a redelivered or resent batch, write and embedding run after the end
        jobs.batch_done(store, job, 1, 2)
        jobs.set_stage(store, job, "writing")
    (after_done,), (after_cancel,) = jobs.list_jobs(store, done), jobs.list_jobs(store, cancelled)
    assert (after_done["state"], after_done["stage"], after_done["files_done"]) == ("done", "done", 2)
    assert (after_cancel["state"], after_cancel["files_done"]) == ("failed", 0)
