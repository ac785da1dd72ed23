// A __TYPE__ relationship open from snapshot number $seq between the open versions of each __SRC__ -> __DST__
// pair of $rows ([{src, dst, resolution}]), if $writer still writes it. Runs after the nodes are renewed.
// CREATE, not MERGE: the diff lists each relationship once, and a failed write is truncated before a retry.
MATCH (:Snapshot {repo: $repo, seq: $seq, writer: $writer})
UNWIND $rows AS r
MATCH (a:__SRC__ {repo: $repo, id: r.src}) USING INDEX SEEK a:__SRC__(repo, id) WHERE a.until = $open
MATCH (b:__DST__ {repo: $repo, id: r.dst}) USING INDEX SEEK b:__DST__(repo, id) WHERE b.until = $open
CREATE (a)-[:__TYPE__ {resolution: r.resolution, since: $seq, until: $open}]->(b)
