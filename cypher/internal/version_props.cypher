// The stored properties of the __LABEL__ nodes $ids in snapshot $snapshot: a new snapshot that takes an unchanged
// file's nodes from a base that is not the head writes them again from here.
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
UNWIND $ids AS wanted
MATCH (n:__LABEL__ {repo: $repo, id: wanted}) USING INDEX SEEK n:__LABEL__(repo, id) WHERE n.since <= v.seq < n.until
RETURN n.id AS id, properties(n) AS props
