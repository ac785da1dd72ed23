// An enqueued index run: what `spider jobs` shows. Its commit is `commit`, not `snapshot`: a job is not part of
// any snapshot's graph. files_done counts the parse batches that finished (each batch once, however often
// Celery redelivers it). `active` = repo@commit while the job runs: unique (constraint index_job_active), so a
// second job for the same snapshot cannot be created until this one is done or failed. `base`, `embed` and `model`
// are what it takes to send an index job's tasks again (job_claim_stalled); `fetch`, a manifest repository's entry
// (none where its URL holds a credential), what it takes to send its fetch job's task again.
CREATE (j:IndexJob {id: $id, active: $repo + '@' + $snapshot, repo: $repo, rev: $rev, commit: $snapshot,
                    path: $path, state: 'queued',
                    stage: 'queued', files_total: $files_total, files_done: 0, batches_done: [], errors: [],
                    base: $base, embed: $embed, model: $model, fetch: $fetch,
                    created_at: datetime(), updated_at: datetime()})
