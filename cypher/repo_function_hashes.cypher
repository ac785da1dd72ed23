// The content hashes of every Function version of a repository, whichever snapshots see it (complete or being
// written): the vectors to keep when a snapshot is deleted. Seeks the (repo, since) index by its prefix.
MATCH (f:Function {repo: $repo})
WHERE f.since IS NOT NULL
RETURN DISTINCT f.content_hash AS content_hash
