// The content hashes of a snapshot's functions: which vectors are its members (a dense search keeps those).
MATCH (f:Function {repo: $repo, snapshot: $snapshot})
RETURN f.content_hash AS content_hash
