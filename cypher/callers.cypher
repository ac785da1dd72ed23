// Who calls the function or class $id (INVOKES edges into it), with how each call was resolved.
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (target:Function|Class {repo: $repo, id: $id}) WHERE target.since <= v.seq < target.until
MATCH (caller)-[e:INVOKES]->(target) WHERE e.since <= v.seq < e.until
RETURN caller.id AS caller, labels(caller)[0] AS label, e.resolution AS resolution,
       caller.path AS path, caller.start_line AS start_line, caller.end_line AS end_line
ORDER BY caller
