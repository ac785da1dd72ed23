// What the function or class $id calls (INVOKES edges out of it), with how each call was resolved.
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
CALL () {
  MATCH (source:Function {repo: $repo, id: $id}) USING INDEX SEEK source:Function(repo, id) RETURN source
  UNION
  MATCH (source:Class {repo: $repo, id: $id}) USING INDEX SEEK source:Class(repo, id) RETURN source
}
WITH v, source WHERE source.since <= v.seq < source.until
MATCH (source)-[e:INVOKES]->(callee) WHERE e.since <= v.seq < e.until
RETURN callee.id AS callee, labels(callee)[0] AS label, e.resolution AS resolution,
       callee.path AS path, callee.start_line AS start_line, callee.end_line AS end_line
ORDER BY callee
