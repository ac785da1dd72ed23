// Job $id failed (or was cancelled): keep the error, and free its snapshot for a new job.
MATCH (j:IndexJob {id: $id})
SET j.state = 'failed', j.errors = j.errors + $error, j.updated_at = datetime(), j.finished_at = datetime(),
    j.active = null
