// Taken in a transaction that stays open while one writer changes $repo's versioned graph: a second writer's
// SET waits on the node's lock until the first commits (repository_release) or its connection drops.
// head: the snapshot number whose graph the open versions hold (null: nothing written yet). held: false when the
// writer waited for deleted the node meanwhile (repository_delete): the lock is then on nothing.
MATCH (r:Repository {repo: $repo})
SET r.writer = $writer
WITH r
OPTIONAL MATCH (still:Repository {repo: $repo})
RETURN r.head AS head, still IS NOT NULL AS held
