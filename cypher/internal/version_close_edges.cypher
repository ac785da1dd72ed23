// End the open __TYPE__ relationship of each pair of $rows ([{src, dst}]: the element ids of the open versions
// of its ends) at snapshot number $seq, if $writer still writes it. Runs before the nodes are renewed: it finds
// them open. Element ids, as in version_create_edges; both ends are found before the relationship, so that it is
// looked for between them (Expand(Into)), not among every relationship of one end (a hub has thousands); the
// subquery keeps the planner from starting at one end.
MATCH (:Snapshot {repo: $repo, seq: $seq, writer: $writer})
UNWIND $rows AS r
CALL (r) {
  MATCH (a) WHERE elementId(a) = r.src
  MATCH (b) WHERE elementId(b) = r.dst
  RETURN a, b
}
MATCH (a)-[e:__TYPE__]->(b) WHERE e.until = $open
SET e.until = $seq
