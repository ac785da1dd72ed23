// Is (repo, snapshot) indexed? No row when it was never started. stats is a JSON string; seq is null for a
// snapshot written before versioning (legacy).
MATCH (s:Snapshot {repo: $repo, snapshot: $snapshot})
RETURN s.complete AS complete, s.rev AS rev, s.stats AS stats, s.seq AS seq
