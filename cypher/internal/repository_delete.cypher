// The last statement of a repository's write transaction when no snapshot of $repo is left: its lock node goes.
MATCH (r:Repository {repo: $repo})
DELETE r
