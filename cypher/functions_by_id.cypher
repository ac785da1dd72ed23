// Where the functions $ids of a snapshot are: what spider-query prints; with $with_code also what only the
// selectors read: their code and degree (relationships of any type, either direction).
// @param with_code = false
UNWIND $ids AS wanted
MATCH (f:Function {repo: $repo, snapshot: $snapshot, id: wanted})
RETURN f.id AS id, f.path AS path, f.start_line AS start_line, f.end_line AS end_line,
       f.language AS language, f.kind AS kind,
       CASE WHEN $with_code THEN f.code END AS code,
       CASE WHEN $with_code THEN COUNT { (f)--() } END AS degree
