// What a versioned write needs of a snapshot's nodes when no digest of them is cached: every property but the
// code (the content hash stands for it).
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (n:Directory|File|Class|Function {repo: $repo}) WHERE n.since <= v.seq < n.until
RETURN labels(n)[0] AS label, n.id AS id, n.name AS name, n.path AS path, n.language AS language, n.kind AS kind,
       n.start_line AS start_line, n.end_line AS end_line, n.content_hash AS content_hash
