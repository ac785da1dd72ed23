// A parse batch of job $id finished: count its files, once (and not at all once the job has finished).
MATCH (j:IndexJob {id: $id})
WHERE NOT $batch IN j.batches_done AND j.finished_at IS NULL
SET j.batches_done = j.batches_done + $batch, j.files_done = j.files_done + $files,
    j.state = 'running', j.stage = 'parsing', j.updated_at = datetime()
