// Who calls the function or class $id (INVOKES edges into it), with how each call was resolved.
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
CALL () {
  MATCH (target:Function {repo: $repo, id: $id}) USING INDEX SEEK target:Function(repo, id) RETURN target
  UNION
  MATCH (target:Class {repo: $repo, id: $id}) USING INDEX SEEK target:Class(repo, id) RETURN target
}
WITH v, target WHERE target.since <= v.seq < target.until
MATCH (caller)-[e:INVOKES]->(target) WHERE e.since <= v.seq < e.until
RETURN caller.id AS caller, labels(caller)[0] AS label, e.resolution AS resolution,
       caller.path AS path, caller.start_line AS start_line, caller.end_line AS end_line
ORDER BY caller
