// Taken in a transaction that stays open while one writer changes $repo's versioned graph: a second writer's
// SET waits on the node's lock until the first commits (repository_release) or its connection drops.
// head: the snapshot number whose graph the open versions hold (null: nothing written yet).
MATCH (r:Repository {repo: $repo})
SET r.writer = $writer
RETURN r.head AS head
