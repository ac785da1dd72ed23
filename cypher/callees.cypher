// What the function or class $id calls (INVOKES edges out of it), with how each call was resolved.
CALL {
  MATCH (source:Function {repo: $repo, snapshot: $snapshot, id: $id}) RETURN source
  UNION
  MATCH (source:Class {repo: $repo, snapshot: $snapshot, id: $id}) RETURN source
}
MATCH (source)-[e:INVOKES]->(callee)
RETURN callee.id AS callee, labels(callee)[0] AS label, e.resolution AS resolution,
       callee.path AS path, callee.start_line AS start_line, callee.end_line AS end_line
ORDER BY callee
