// Batched, idempotent relationship write for one (source label, type, target label) combination.
// $rows: [{src, dst, resolution}] (resolution is null for CONTAINS)
UNWIND $rows AS r
MATCH (a:__SRC__ {repo: $repo, snapshot: $snapshot, id: r.src})
MATCH (b:__DST__ {repo: $repo, snapshot: $snapshot, id: r.dst})
MERGE (a)-[e:__TYPE__]->(b)
SET e.resolution = r.resolution
