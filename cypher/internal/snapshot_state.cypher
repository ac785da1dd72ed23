// Is (repo, snapshot) indexed? No row when it was never started. The columns are those of snapshots.cypher: stats is a JSON string; seq is null for a
// snapshot written before versioning (legacy).
MATCH (s:Snapshot {repo: $repo, snapshot: $snapshot})
RETURN s.repo AS repo, s.snapshot AS snapshot, s.rev AS rev, s.complete AS complete, s.seq AS seq, s.writer AS writer,
       toString(s.indexed_at) AS indexed_at, s.stats AS stats
