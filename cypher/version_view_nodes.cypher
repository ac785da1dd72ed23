// Versioned graph: every node of snapshot number $seq with all its properties.
MATCH (n:Directory|File|Class|Function {repo: $repo}) WHERE n.since <= $seq < n.until
RETURN labels(n)[0] AS label, n.id AS id, properties(n) AS props
