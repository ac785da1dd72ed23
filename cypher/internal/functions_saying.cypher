// The functions of a snapshot whose code holds any of $messages (error messages an issue quotes), with the
// messages each holds.
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (f:Function {repo: $repo}) WHERE f.since <= v.seq < f.until
WITH f, [m IN $messages WHERE f.code CONTAINS m] AS said
WHERE said <> []
RETURN f.id AS id, said
LIMIT 1000
