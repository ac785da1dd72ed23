// What a commit changed: the directories, files, classes and functions of $repo added, removed or changed (a new version of
// the same id: its code or its lines) from the snapshot $old (e.g. the commit's parent: its sha, a prefix of it
// or the revision it was indexed as) to the snapshot $snapshot. Relationships are left out: `spider snapshots
// diff` and the MCP tool `changed` list those too.
// Parameters: $repo, $snapshot (the newer), $old (the older).
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
CALL (v) {
  MATCH (o:Snapshot {repo: $repo}) WHERE o.snapshot STARTS WITH $old OR o.rev = $old
  RETURN o ORDER BY o.indexed_at DESC LIMIT 1
}
MATCH (n:Directory|File|Class|Function {repo: $repo})
WHERE (n.since <= v.seq < n.until) <> (n.since <= o.seq < n.until)
WITH labels(n)[0] AS label, n.id AS id, n.since <= v.seq < n.until AS in_new, n
WITH label, id, collect(CASE WHEN in_new THEN n END)[0] AS now, collect(CASE WHEN NOT in_new THEN n END)[0] AS before
RETURN CASE WHEN before IS NULL THEN "added" WHEN now IS NULL THEN "removed" ELSE "changed" END AS change,
       label, id, coalesce(now.path, before.path) AS path, now.start_line AS start_line, now.end_line AS end_line
ORDER BY path, start_line, id
