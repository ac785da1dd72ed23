// The content hashes of every Function of a repository, in any snapshot (complete or being written): the vectors
// to keep when a snapshot is deleted. The IS NOT NULL conditions let the planner seek the (repo, snapshot, id)
// index by its prefix instead of scanning every Function (1.8 s vs 3.5 s for 36k hashes here).
MATCH (f:Function {repo: $repo})
WHERE f.snapshot IS NOT NULL AND f.id IS NOT NULL
RETURN DISTINCT f.content_hash AS content_hash
