// SpIDER expansion (query pipeline step 3): every Function within d hops of the seed functions $seeds.
// $edges maps each relationship type to its depth (1..6), e.g. {CONTAINS: 4, INVOKES: 2}. Each type is expanded
// on its own: paths of that type only, each relationship in either direction, hops through Directory, File and
// Class nodes counted. The search is breadth-first (ANY SHORTEST with an open end visits each node at most once
// per seed and type), so a directory with thousands of files costs its size once, never its paths.
// $pool (optional): return only these function ids (the query's Stage 1, the dense top-N); seeds never come back.
// One row per (function, type): the shortest hop count, the nearest seed (tie: the one earlier in $seeds), the
// relationships along that path with their direction as walked from the seed, and the nodes it passes through.
// Only the snapshot's versions are walked: relationships whose interval holds its number (their endpoints' do).
// Parameters: $repo, $snapshot, $seeds, $edges, $pool.
// @param edges = {"CONTAINS": 4}
// @param pool = null
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
WITH v.seq AS seq
UNWIND range(0, size($seeds) - 1) AS seed_rank
MATCH (s:Function {repo: $repo, id: $seeds[seed_rank]}) USING INDEX SEEK s:Function(repo, id) WHERE s.since <= seq < s.until
UNWIND keys($edges) AS rel_type
CALL (s, rel_type, seq) {
  WITH s, rel_type, seq WHERE $edges[rel_type] = 1
  MATCH p = ANY SHORTEST (s) (()-[r:$(rel_type) WHERE r.since <= seq < r.until]-()){1,1} (f:Function) RETURN p
  UNION ALL
  WITH s, rel_type, seq WHERE $edges[rel_type] = 2
  MATCH p = ANY SHORTEST (s) (()-[r:$(rel_type) WHERE r.since <= seq < r.until]-()){1,2} (f:Function) RETURN p
  UNION ALL
  WITH s, rel_type, seq WHERE $edges[rel_type] = 3
  MATCH p = ANY SHORTEST (s) (()-[r:$(rel_type) WHERE r.since <= seq < r.until]-()){1,3} (f:Function) RETURN p
  UNION ALL
  WITH s, rel_type, seq WHERE $edges[rel_type] = 4
  MATCH p = ANY SHORTEST (s) (()-[r:$(rel_type) WHERE r.since <= seq < r.until]-()){1,4} (f:Function) RETURN p
  UNION ALL
  WITH s, rel_type, seq WHERE $edges[rel_type] = 5
  MATCH p = ANY SHORTEST (s) (()-[r:$(rel_type) WHERE r.since <= seq < r.until]-()){1,5} (f:Function) RETURN p
  UNION ALL
  WITH s, rel_type, seq WHERE $edges[rel_type] = 6
  MATCH p = ANY SHORTEST (s) (()-[r:$(rel_type) WHERE r.since <= seq < r.until]-()){1,6} (f:Function) RETURN p
}
WITH seed_rank, s, rel_type, p, last(nodes(p)) AS f
WHERE NOT f.id IN $seeds AND ($pool IS NULL OR f.id IN $pool)
ORDER BY length(p), seed_rank
WITH f, rel_type, collect(p)[0] AS p
RETURN f.id AS id, rel_type, length(p) AS hops, nodes(p)[0].id AS seed,
       [i IN range(0, length(p) - 1) |
          CASE WHEN startNode(relationships(p)[i]) = nodes(p)[i]
               THEN '-' + type(relationships(p)[i]) + '->' ELSE '<-' + type(relationships(p)[i]) + '-' END] AS edge_path,
       [n IN nodes(p)[1..-1] | n.id] AS via,
       f.path AS path, f.start_line AS start_line, f.end_line AS end_line
ORDER BY hops, id, rel_type
