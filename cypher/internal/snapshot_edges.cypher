// Every relationship of a snapshot (source id, type, target id, properties): what `spider snapshots diff`
// compares. A relationship version lies within both its endpoints' versions, so its own interval decides.
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (a:Directory|File|Class|Function {repo: $repo})-[r]->(b) WHERE a.until > v.seq AND r.since <= v.seq < r.until
RETURN a.id AS src, type(r) AS type, b.id AS dst, properties(r) AS props
