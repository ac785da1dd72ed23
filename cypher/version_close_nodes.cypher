// Versioned graph: end the open version of each __LABEL__ node of $ids at snapshot number $seq.
UNWIND $ids AS id
MATCH (n:__LABEL__ {repo: $repo, id: id}) WHERE n.until = $open
SET n.until = $seq
