// The last statement of a repository's write transaction: snapshot number $head now holds the open versions.
MATCH (r:Repository {repo: $repo})
SET r.head = $head, r.writer = null
