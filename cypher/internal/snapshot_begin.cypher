// Register snapshot number $seq of $repo as being written by $writer (a token the version writes check): queries
// ignore it until snapshot_complete sets complete = true.
CREATE (s:Snapshot {repo: $repo, snapshot: $snapshot, seq: $seq, writer: $writer, complete: false, rev: $rev,
                    started_at: datetime()})
