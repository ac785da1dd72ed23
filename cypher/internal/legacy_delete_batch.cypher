// Delete up to $batch nodes of a snapshot written before versioning, when every snapshot was a full copy of its
// graph keyed by (repo, snapshot, id) (run until it returns 0, then snapshot_delete_marker).
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
