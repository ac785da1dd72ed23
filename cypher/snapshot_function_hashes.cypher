// Every function of the files $paths of a snapshot, without its code: what the embed stage needs to reuse its
// vector (content_hash) or, when none is stored, to find and embed it.
MATCH (f:Function {repo: $repo, snapshot: $snapshot})
WHERE f.path IN $paths
RETURN f.id AS id, f.name AS name, f.path AS path, f.language AS language, f.kind AS kind,
       f.start_line AS start_line, f.end_line AS end_line, f.content_hash AS content_hash
ORDER BY f.id
