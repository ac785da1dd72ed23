// Is (repo, snapshot) indexed? No row when it was never started. stats is a JSON string.
MATCH (s:Snapshot {repo: $repo, snapshot: $snapshot})
RETURN s.complete AS complete, s.rev AS rev, s.stats AS stats
