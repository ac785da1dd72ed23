// Incremental indexing: copy the __LABEL__ nodes of the files $paths from snapshot $base into $snapshot, all
// properties but `snapshot` unchanged (the files are byte-identical in both commits, so are their nodes).
// Runs in batches of its own transactions (auto-commit): the target snapshot is invisible until complete.
MATCH (a:__LABEL__ {repo: $repo, snapshot: $base})
WHERE a.path IN $paths
CALL (a) {
  CREATE (b:__LABEL__)
  SET b = a {.*, snapshot: $snapshot}
} IN TRANSACTIONS OF 10000 ROWS
