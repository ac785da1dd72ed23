// Every snapshot, newest first; $repo = null lists all repositories. seq: the snapshot's number in its
// repository's versioned graph (null: written before versioning).
MATCH (s:Snapshot)
WHERE $repo IS NULL OR s.repo = $repo
RETURN s.repo AS repo, s.snapshot AS snapshot, s.rev AS rev, s.complete AS complete, s.seq AS seq, s.writer AS writer,
       toString(s.indexed_at) AS indexed_at, s.stats AS stats
ORDER BY s.repo, s.indexed_at DESC
