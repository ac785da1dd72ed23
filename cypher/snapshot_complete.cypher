// The last write of an index run: from now on queries see this snapshot.
MATCH (s:Snapshot {repo: $repo, snapshot: $snapshot})
SET s.complete = true, s.indexed_at = datetime(), s.stats = $stats
RETURN s.snapshot AS snapshot
