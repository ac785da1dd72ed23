// Hotspots by fan-in: the functions and classes of a snapshot called from the most places (INVOKES edges into
// them from distinct callers), with how many files those callers are in. Ties: by id.
// Parameters: $repo, $snapshot, $limit (toInteger: Neo4j Browser's :params stores numbers as floats).
// @param limit = 25
MATCH (v:Snapshot {repo: $repo, snapshot: $snapshot})
MATCH (caller)-[e:INVOKES]->(target:Function|Class {repo: $repo}) WHERE e.since <= v.seq < e.until
WITH target, count(DISTINCT caller) AS fan_in, count(DISTINCT caller.path) AS caller_files
RETURN target.id AS id, labels(target)[0] AS label, fan_in, caller_files,
       target.path AS path, target.start_line AS start_line, target.end_line AS end_line
ORDER BY fan_in DESC, id
LIMIT toInteger($limit)
