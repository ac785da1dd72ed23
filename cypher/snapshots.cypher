// Every snapshot, newest first; $repo = null lists all repositories.
MATCH (s:Snapshot)
WHERE $repo IS NULL OR s.repo = $repo
RETURN s.repo AS repo, s.snapshot AS snapshot, s.rev AS rev, s.complete AS complete,
       toString(s.indexed_at) AS indexed_at, s.stats AS stats
ORDER BY s.repo, s.indexed_at DESC
