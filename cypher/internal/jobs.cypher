// Index jobs, newest first: all of them, or the one whose id starts with $id.
// @param id = null
// @param limit = 50
MATCH (j:IndexJob)
WHERE $id IS NULL OR j.id STARTS WITH $id
RETURN j.id AS id, j.repo AS repo, j.rev AS rev, j.commit AS snapshot, j.state AS state, j.stage AS stage,
       j.files_done AS files_done, j.files_total AS files_total, j.errors AS errors,
       toString(j.created_at) AS created_at, toString(j.updated_at) AS updated_at,
       toString(j.finished_at) AS finished_at, coalesce(j.children, []) AS children
ORDER BY j.created_at DESC
LIMIT $limit
