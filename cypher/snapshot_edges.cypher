// Every relationship of a snapshot (source id, type, target id, properties): what `spider snapshots diff` compares.
MATCH (a {repo: $repo, snapshot: $snapshot})-[r]->(b)
WHERE a:Directory OR a:File OR a:Class OR a:Function
RETURN a.id AS src, type(r) AS type, b.id AS dst, properties(r) AS props
