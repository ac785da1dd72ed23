// Every node of a snapshot with all its properties: what `spider snapshots diff` compares.
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (n:Directory|File|Class|Function {repo: $repo}) WHERE n.until > v.seq AND n.since <= v.seq
RETURN labels(n)[0] AS label, n.id AS id, properties(n) AS props
