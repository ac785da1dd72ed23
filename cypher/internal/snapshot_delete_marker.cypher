// Remove the Snapshot node itself, after its graph is gone.
MATCH (s:Snapshot {repo: $repo, snapshot: $snapshot})
DELETE s
