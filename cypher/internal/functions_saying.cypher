// Which of the functions $ids of a snapshot (those whose words could hold them) have any of $messages (error
// messages an issue quotes) in their code, with the messages each holds.
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
UNWIND $ids AS wanted
MATCH (f:Function {repo: $repo, id: wanted}) USING INDEX SEEK f:Function(repo, id) WHERE f.since <= v.seq < f.until
WITH f, [m IN $messages WHERE f.code CONTAINS m] AS said
WHERE said <> []
RETURN f.id AS id, said
LIMIT 1000
