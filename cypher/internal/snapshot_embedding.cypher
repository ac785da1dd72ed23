// A complete snapshot's stats after its vectors were checked in (and embedded into) another vector store: the
// stores recorded in stats.embedding grow; when it was indexed (the order of snapshots) stays.
MATCH (s:Snapshot {repo: $repo, snapshot: $snapshot})
WHERE s.complete
SET s.stats = $stats
RETURN s.snapshot AS snapshot
