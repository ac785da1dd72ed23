// The classes and functions a file contains, outermost first, with their nesting depth and line spans.
// Parameters: $repo, $snapshot, $path (the file's path, which is also its id).
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (f:File {repo: $repo, id: $path}) USING INDEX SEEK f:File(repo, id) WHERE f.since <= v.seq < f.until
MATCH p = (f) (()-[c:CONTAINS WHERE c.since <= v.seq < c.until]->()){1,12} (e)
RETURN e.id AS id, labels(e)[0] AS label, e.kind AS kind, length(p) AS depth,
       e.start_line AS start_line, e.end_line AS end_line
ORDER BY e.start_line, depth
