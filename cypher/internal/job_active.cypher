// The job currently indexing $repo @ $snapshot, if any.
MATCH (j:IndexJob {active: $repo + '@' + $snapshot})
RETURN j.id AS id
