// Versioned graph: undo every snapshot numbered after $seq (an unfinished write, or deleted head snapshots):
// versions they created go, versions they ended are open again. A relationship lies within its ends' versions,
// so `a.until > $seq` holds for every one concerned: it lets the planner seek the (repo, until) index.
MATCH (n:Directory|File|Class|Function {repo: $repo}) WHERE n.since > $seq
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS;
MATCH (a:Directory|File|Class|Function {repo: $repo})-[e]->() WHERE a.until > $seq AND e.since > $seq
CALL (e) { DELETE e } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Directory|File|Class|Function {repo: $repo}) WHERE $seq < n.until < $open
CALL (n) { SET n.until = $open } IN TRANSACTIONS OF 10000 ROWS;
MATCH (a:Directory|File|Class|Function {repo: $repo})-[e]->() WHERE a.until > $seq AND $seq < e.until < $open
CALL (e) { SET e.until = $open } IN TRANSACTIONS OF 10000 ROWS;
