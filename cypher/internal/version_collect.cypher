// Delete the versions only snapshot numbers in ($prev, $next) could see, $seq being the one deleted among them:
// what deleting a snapshot that is not the head leaves to nobody. $prev / $next: the nearest snapshots kept
// before and after it (0 when none before). `a.until > $seq` (true of every relationship concerned, which lies
// within its ends' versions) lets the planner seek the (repo, until) index.
MATCH (a:Directory|File|Class|Function {repo: $repo})-[e]->()
WHERE a.until > $seq AND $prev < e.since <= $seq AND $seq < e.until <= $next
CALL (e) { DELETE e } IN TRANSACTIONS OF 10000 ROWS;
MATCH (n:Directory|File|Class|Function {repo: $repo})
WHERE $prev < n.since <= $seq AND $seq < n.until <= $next
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS;
