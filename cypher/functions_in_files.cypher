// Every function in the files $paths of a snapshot with its line span: what evaluation matches targets against.
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (f:Function {repo: $repo}) WHERE f.since <= v.seq < f.until AND f.path IN $paths
RETURN f.id AS id, f.path AS path, f.start_line AS start_line, f.end_line AS end_line
ORDER BY f.id
