// Versioned graph: a new __LABEL__ version of each node of $rows ([{id, props}]), open from snapshot number $seq.
UNWIND $rows AS r
CREATE (n:__LABEL__ {repo: $repo, id: r.id, since: $seq, until: $open})
SET n += r.props
