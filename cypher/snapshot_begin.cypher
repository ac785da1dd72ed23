// Register a snapshot as being written: queries ignore it until snapshot_complete sets complete = true.
MERGE (s:Snapshot {repo: $repo, snapshot: $snapshot})
SET s.complete = false, s.rev = $rev, s.started_at = datetime()
