// End the open version of each __LABEL__ node of $ids at snapshot number $seq, if $writer still writes it.
MATCH (:Snapshot {repo: $repo, seq: $seq, writer: $writer})
UNWIND $ids AS id
MATCH (n:__LABEL__ {repo: $repo, id: id}) USING INDEX SEEK n:__LABEL__(repo, id) WHERE n.until = $open
SET n.until = $seq
