// The element ids of the open versions of the __LABEL__ nodes $ids: the ends, kept from the head, of the
// relationships a write creates (the ends it creates itself return theirs).
UNWIND $ids AS wanted
MATCH (n:__LABEL__ {repo: $repo, id: wanted}) USING INDEX SEEK n:__LABEL__(repo, id) WHERE n.until = $open
RETURN n.id AS id, elementId(n) AS element
