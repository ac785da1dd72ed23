// Every node of a snapshot with all its properties: what `spider snapshots diff` compares.
MATCH (n {repo: $repo, snapshot: $snapshot})
WHERE n:Directory OR n:File OR n:Class OR n:Function
RETURN labels(n)[0] AS label, n.id AS id, properties(n) AS props
