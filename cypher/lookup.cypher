// What $id may mean in a snapshot: the function, class or file with that id, and those whose name is one of
// $names (a function's or class's simple name, a file's name). `spider mcp` ranks them (query/mcp/ids.py).
// Functions are found by their name index; classes and files (no name index) by a scan of this repository's.
// `named` finds by name, so the id-seek check (tests/integration/indexer/graph/test_query_plans.py) leaves it be.
// Parameters: $repo, $snapshot, $id, $names.
// @param names = []
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
CALL () {
  MATCH (n:Function {repo: $repo, id: $id}) USING INDEX SEEK n:Function(repo, id) RETURN n
  UNION
  MATCH (n:Class {repo: $repo, id: $id}) USING INDEX SEEK n:Class(repo, id) RETURN n
  UNION
  MATCH (n:File {repo: $repo, id: $id}) USING INDEX SEEK n:File(repo, id) RETURN n
  UNION
  MATCH (named:Function) WHERE named.name IN $names AND named.repo = $repo RETURN named AS n
  UNION
  MATCH (named:Class) USING INDEX named:Class(repo, id)
  WHERE named.repo = $repo AND named.id IS NOT NULL AND named.name IN $names RETURN named AS n
  UNION
  MATCH (named:File) USING INDEX named:File(repo, id)
  WHERE named.repo = $repo AND named.id IS NOT NULL AND named.name IN $names RETURN named AS n
}
WITH v, n WHERE n.since <= v.seq < n.until
RETURN n.id AS id, labels(n)[0] AS label, n.path AS path, n.start_line AS start_line, n.end_line AS end_line
ORDER BY id
LIMIT 200
