// Functions within $d hops (1..8) of the function $id, over the relationship types $types
// (default: all four), each relationship traversed in either direction; hop count = shortest path.
// Parameters: $repo, $snapshot, $id, $d, $types.
// @param d = 4
// @param types = ["CONTAINS", "IMPORTS", "INVOKES", "INHERITS"]
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (s:Function {repo: $repo, id: $id}) USING INDEX SEEK s:Function(repo, id) WHERE s.since <= v.seq < s.until
MATCH p = ANY SHORTEST (s) (()-[r WHERE type(r) IN $types AND r.since <= v.seq < r.until]-()){1,8} (n:Function)
WHERE length(p) <= $d AND n <> s
RETURN n.id AS id, length(p) AS hops, [x IN relationships(p) | type(x)] AS edge_path,
       n.path AS path, n.start_line AS start_line, n.end_line AS end_line
ORDER BY hops, id
