// Where the functions $ids of a snapshot are and their code: what spider-query prints and what selectors read.
UNWIND $ids AS wanted
MATCH (f:Function {repo: $repo, snapshot: $snapshot, id: wanted})
RETURN f.id AS id, f.path AS path, f.start_line AS start_line, f.end_line AS end_line,
       f.language AS language, f.kind AS kind, f.code AS code
