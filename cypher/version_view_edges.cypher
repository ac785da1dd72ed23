// Versioned graph: every relationship of snapshot number $seq (source id, type, target id, properties), between
// node versions of that snapshot.
MATCH (a:Directory|File|Class|Function {repo: $repo})-[r]->(b)
WHERE r.since <= $seq < r.until AND a.since <= $seq < a.until AND b.since <= $seq < b.until
RETURN a.id AS src, type(r) AS type, b.id AS dst, properties(r) AS props
