// Where the functions $ids of a snapshot are: what spider-query prints; with $with_code also what only the
// selectors read: their code and degree (the snapshot's relationships of any type, either direction).
// @param with_code = false
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
UNWIND $ids AS wanted
MATCH (f:Function {repo: $repo, id: wanted}) USING INDEX SEEK f:Function(repo, id) WHERE f.since <= v.seq < f.until
RETURN f.id AS id, f.path AS path, f.start_line AS start_line, f.end_line AS end_line,
       f.language AS language, f.kind AS kind,
       CASE WHEN $with_code THEN f.code END AS code,
       CASE WHEN $with_code THEN COUNT { (f)-[r]-() WHERE r.since <= v.seq < r.until } END AS degree
