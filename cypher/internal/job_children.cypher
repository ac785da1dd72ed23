// A manifest repository's job fetched its repository and enqueued one index job per revision: $children.
MATCH (j:IndexJob {id: $id})
SET j.children = $children, j.stage = 'done', j.state = 'done', j.updated_at = datetime(),
    j.finished_at = datetime(), j.active = null
