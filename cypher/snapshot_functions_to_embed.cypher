// What the embed task needs of every function of a snapshot (the write task already stored it).
MATCH (f:Function {repo: $repo, snapshot: $snapshot})
RETURN f.id AS id, f.name AS name, f.path AS path, f.language AS language, f.kind AS kind,
       f.start_line AS start_line, f.end_line AS end_line, f.code AS code, f.content_hash AS content_hash
ORDER BY f.id
