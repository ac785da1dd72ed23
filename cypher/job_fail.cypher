// Job $id failed: keep the error; a job fails once (a later task of the same job adds its error too).
MATCH (j:IndexJob {id: $id})
SET j.state = 'failed', j.errors = j.errors + $error, j.updated_at = datetime(), j.finished_at = datetime()
