// Running or queued jobs (index jobs, and manifest repositories' fetch jobs) that have not moved for $seconds,
// claimed by this caller to send their tasks again: claiming counts as moving, so of several workers sweeping at
// once one claims each job. Setting `claimed` first takes the job's write lock; the age is then read again, as the
// lock's last holder committed it.
MATCH (j:IndexJob)
WHERE j.state IN ['queued', 'running'] AND j.embed IS NOT NULL
  AND j.updated_at < datetime() - duration({seconds: $seconds})
SET j.claimed = true
WITH j, j.updated_at < datetime() - duration({seconds: $seconds}) AS stalled
REMOVE j.claimed
WITH j
WHERE stalled
SET j.updated_at = datetime(), j.sent_again = coalesce(j.sent_again, 0) + 1
RETURN j.id AS id, j.repo AS repo, j.rev AS rev, j.commit AS commit, j.path AS path, j.base AS base,
       j.embed AS embed, j.model AS model, j.fetch AS fetch
