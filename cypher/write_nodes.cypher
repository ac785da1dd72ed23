// Batched, idempotent node write for one label (__LABEL__ is filled from indexer.graph_schema.Label).
// $rows: [{id, props: {name, path, language, kind, start_line, end_line, code, content_hash}}]
UNWIND $rows AS r
MERGE (n:__LABEL__ {repo: $repo, snapshot: $snapshot, id: r.id})
SET n += r.props
