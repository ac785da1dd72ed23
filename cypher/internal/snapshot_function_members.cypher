// A snapshot's functions as the vector store knows them (id and content hash): a dense search keeps those points.
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (f:Function {repo: $repo}) WHERE f.until > v.seq AND f.since <= v.seq
RETURN f.id AS id, f.content_hash AS content_hash
