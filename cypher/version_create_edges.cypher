// Versioned graph: a __TYPE__ relationship open from snapshot number $seq between the open versions of each
// __SRC__ -> __DST__ pair of $rows ([{src, dst, resolution}]). Runs after the nodes are renewed.
UNWIND $rows AS r
MATCH (a:__SRC__ {repo: $repo, id: r.src}) WHERE a.until = $open
MATCH (b:__DST__ {repo: $repo, id: r.dst}) WHERE b.until = $open
CREATE (a)-[:__TYPE__ {resolution: r.resolution, since: $seq, until: $open}]->(b)
