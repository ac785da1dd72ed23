// Job $id moved to $stage (resolving and writing, embedding, done); $state is running or done. A finished job
// (done, failed or cancelled) stays finished when a stray redelivered task of it runs.
MATCH (j:IndexJob {id: $id})
WHERE j.finished_at IS NULL
SET j.stage = $stage, j.state = $state, j.updated_at = datetime(),
    j.finished_at = CASE WHEN $state = 'done' THEN datetime() ELSE j.finished_at END,
    j.active = CASE WHEN $state = 'done' THEN null ELSE j.active END
