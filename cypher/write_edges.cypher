// Batched relationship write for one (source label, type, target label) combination.
// $rows: [{src, dst, resolution}] (resolution is null for CONTAINS)
// CREATE, not MERGE (1.3x faster on dense nodes): the snapshot is new (write_graph deletes what a crashed or
// forced earlier run left), and the driver never replays a transaction whose commit outcome is unknown
// (IncompleteCommit): it fails the run, whose retry rewrites the snapshot from scratch.
UNWIND $rows AS r
MATCH (a:__SRC__ {repo: $repo, snapshot: $snapshot, id: r.src})
MATCH (b:__DST__ {repo: $repo, snapshot: $snapshot, id: r.dst})
CREATE (a)-[e:__TYPE__ {resolution: r.resolution}]->(b)
