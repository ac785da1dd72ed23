// A __TYPE__ relationship open from snapshot number $seq for each pair of $rows ([{src, dst, resolution}]: the
// element ids of the open versions of its ends), if $writer still writes it. Runs after the nodes are renewed.
// Element ids instead of (label, repo, id) seeks: one statement per relationship type, not per label pair (each
// distinct statement costs a plan, ~0.25 s on a cold server), and a lookup by id per end instead of an index
// seek. They are stable while the repository's writer lock is held (only its writer deletes its nodes).
// CREATE, not MERGE: the diff lists each relationship once, and a failed write is truncated before a retry.
MATCH (:Snapshot {repo: $repo, seq: $seq, writer: $writer})
UNWIND $rows AS r
MATCH (a) WHERE elementId(a) = r.src
MATCH (b) WHERE elementId(b) = r.dst
CREATE (a)-[:__TYPE__ {resolution: r.resolution, since: $seq, until: $open}]->(b)
