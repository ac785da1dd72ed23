// Versioned graph: end the open __TYPE__ relationship between the open versions of each __SRC__ -> __DST__ pair of
// $rows ([{src, dst}]) at snapshot number $seq. Runs before the nodes are renewed: it finds them open.
UNWIND $rows AS r
MATCH (a:__SRC__ {repo: $repo, id: r.src}) WHERE a.until = $open
MATCH (b:__DST__ {repo: $repo, id: r.dst}) WHERE b.until = $open
MATCH (a)-[e:__TYPE__]->(b) WHERE e.until = $open
SET e.until = $seq
