// The calls into and out of the function or class $id, as Neo4j Browser draws them (nodes and relationships,
// not a table): a starter for your own queries. The graph keeps every snapshot of a repository at once; a node or
// relationship belongs to snapshot v when `since <= v.seq < until`, and every MATCH below reads it so. Without
// that reading a query mixes all indexed commits (docs/browser.md).
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
CALL () {
  MATCH (target:Function {repo: $repo, id: $id}) USING INDEX SEEK target:Function(repo, id) RETURN target
  UNION
  MATCH (target:Class {repo: $repo, id: $id}) USING INDEX SEEK target:Class(repo, id) RETURN target
}
WITH v, target WHERE target.since <= v.seq < target.until
MATCH (target)-[call:INVOKES]-(other) WHERE call.since <= v.seq < call.until AND other.since <= v.seq < other.until
RETURN target, call, other
ORDER BY other.id
