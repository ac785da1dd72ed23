// What the embed task needs of the functions of a snapshot (the write task already stored them): all of them,
// or with $created_only those whose version this snapshot created (the others were embedded with its head).
// @param created_only = false
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (f:Function {repo: $repo}) WHERE f.until > v.seq AND f.since <= v.seq AND (NOT $created_only OR f.since = v.seq)
RETURN f.id AS id, f.name AS name, f.path AS path, f.language AS language, f.kind AS kind,
       f.start_line AS start_line, f.end_line AS end_line, f.code AS code, f.content_hash AS content_hash
ORDER BY f.id
