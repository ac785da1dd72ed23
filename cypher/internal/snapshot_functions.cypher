// Every function of a snapshot with its code: what BM25 indexes (and what embeddings are made from).
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (f:Function {repo: $repo}) WHERE f.until > v.seq AND f.since <= v.seq
RETURN f.id AS id, f.code AS code
ORDER BY f.id
