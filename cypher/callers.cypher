// Who calls the function or class $id (INVOKES edges into it), with how each call was resolved.
CALL {
  MATCH (target:Function {repo: $repo, snapshot: $snapshot, id: $id}) RETURN target
  UNION
  MATCH (target:Class {repo: $repo, snapshot: $snapshot, id: $id}) RETURN target
}
MATCH (caller)-[e:INVOKES]->(target)
RETURN caller.id AS caller, labels(caller)[0] AS label, e.resolution AS resolution,
       caller.path AS path, caller.start_line AS start_line, caller.end_line AS end_line
ORDER BY caller
