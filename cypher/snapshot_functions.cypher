// Every function of a snapshot with its code: what BM25 indexes (and what embeddings are made from).
MATCH (f:Function {repo: $repo, snapshot: $snapshot})
RETURN f.id AS id, f.code AS code
ORDER BY f.id
