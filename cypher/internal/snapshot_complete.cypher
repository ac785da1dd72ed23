// The last write of an index run: from now on queries see this snapshot. Only the run that wrote it ($writer, the
// token of its versioned write) completes it: another run of the same commit may have deleted and rewritten it.
MATCH (s:Snapshot {repo: $repo, snapshot: $snapshot})
WHERE s.writer = $writer
SET s.complete = true, s.indexed_at = datetime(), s.stats = $stats
RETURN s.snapshot AS snapshot
