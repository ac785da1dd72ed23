// A new __LABEL__ version of each node of $rows ([{id, props}]), open from snapshot number $seq, if $writer still
// writes it. Returns each version's element id, by which the relationships written next find it.
MATCH (:Snapshot {repo: $repo, seq: $seq, writer: $writer})
UNWIND $rows AS r
CREATE (n:__LABEL__ {repo: $repo, id: r.id, since: $seq, until: $open})
SET n += r.props
RETURN r.id AS id, elementId(n) AS element
