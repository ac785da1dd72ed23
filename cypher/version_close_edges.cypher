// End the open __TYPE__ relationship of each __SRC__ -> __DST__ pair of $rows ([{src, dst}]) at snapshot number
// $seq, if $writer still writes it. Runs before the nodes are renewed: it finds them open.
MATCH (:Snapshot {repo: $repo, seq: $seq, writer: $writer})
UNWIND $rows AS r
MATCH (a:__SRC__ {repo: $repo, id: r.src}) USING INDEX SEEK a:__SRC__(repo, id) WHERE a.until = $open
MATCH (b:__DST__ {repo: $repo, id: r.dst}) USING INDEX SEEK b:__DST__(repo, id) WHERE b.until = $open
MATCH (a)-[e:__TYPE__]->(b) WHERE e.until = $open
SET e.until = $seq
