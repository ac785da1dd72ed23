// A snapshot's functions as the vector store knows them (id and content hash): a dense search keeps those points.
MATCH (f:Function {repo: $repo, snapshot: $snapshot})
RETURN f.id AS id, f.content_hash AS content_hash
