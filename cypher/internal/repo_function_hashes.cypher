// The content hashes of every Function of a repository, whichever snapshots see it (complete, being written, or
// written before versioning): the vectors to keep when a snapshot is deleted. The IS NOT NULL conditions let the
// planner seek the (repo, since) and (repo, id) indexes by their prefix instead of scanning every Function.
MATCH (f:Function {repo: $repo})
WHERE f.since IS NOT NULL
RETURN f.content_hash AS content_hash
UNION
MATCH (f:Function {repo: $repo})
WHERE f.snapshot IS NOT NULL AND f.id IS NOT NULL
RETURN f.content_hash AS content_hash
