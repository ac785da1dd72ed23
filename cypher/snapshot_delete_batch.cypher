// Delete up to $batch nodes of one snapshot (run until it returns 0, then snapshot_delete_marker).
CALL {
  MATCH (n:Function {repo: $repo, snapshot: $snapshot}) RETURN n
  UNION ALL
  MATCH (n:Class {repo: $repo, snapshot: $snapshot}) RETURN n
  UNION ALL
  MATCH (n:File {repo: $repo, snapshot: $snapshot}) RETURN n
  UNION ALL
  MATCH (n:Directory {repo: $repo, snapshot: $snapshot}) RETURN n
}
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
