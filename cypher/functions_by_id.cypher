// Where the functions $ids of a snapshot are: what spider-query prints; with $with_code also their code, which
// only the selectors read.
// @param with_code = false
UNWIND $ids AS wanted
MATCH (f:Function {repo: $repo, snapshot: $snapshot, id: wanted})
RETURN f.id AS id, f.path AS path, f.start_line AS start_line, f.end_line AS end_line,
       f.language AS language, f.kind AS kind,
       CASE WHEN $with_code THEN f.code END AS code
