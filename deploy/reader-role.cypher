// The user analysts (and the MCP server) connect as on a shared production Neo4j: reads of the code graph only.
// spider's own gate (indexer/graph/cypher_gate.py) already refuses LOAD CSV, administration commands and procedures other
// than a few read ones; this role makes the server refuse them too, whatever client sends them.
//
// Neo4j ENTERPRISE only: Community has no roles (CREATE ROLE, GRANT and DENY are Enterprise features; every
// Community user has full access), so on Community the gate and the server settings of deploy/neo4j are the guard.
//
// Run as an admin against the system database, with the analysts' password as a parameter:
//   cypher-shell -a neo4j://HOST:7687 -u neo4j -d system -P 'password => "…"' -f deploy/reader-role.cypher
// Then give analysts NEO4J_USER=spider_analyst and that password. The code graph is the database `neo4j`
// (NEO4J_DATABASE): edit the name below if yours differs. IndexJob and Repository nodes (job records, writer
// locks) are not granted: the analyst queries read Snapshot and the code graph only.
CREATE ROLE spider_reader IF NOT EXISTS;
GRANT ACCESS ON DATABASE neo4j TO spider_reader;
GRANT MATCH {*} ON GRAPH neo4j NODES Snapshot, Directory, File, Class, Function TO spider_reader;
GRANT MATCH {*} ON GRAPH neo4j RELATIONSHIPS CONTAINS, IMPORTS, INVOKES, INHERITS TO spider_reader;
// What the PUBLIC role may grant every user, denied (a DENY wins over any GRANT): writes, schema and name changes,
// LOAD CSV, administration procedures, procedures run with elevated privileges, other sessions' transactions.
DENY WRITE ON GRAPH neo4j TO spider_reader;
DENY INDEX MANAGEMENT ON DATABASE * TO spider_reader;
DENY CONSTRAINT MANAGEMENT ON DATABASE * TO spider_reader;
DENY NAME MANAGEMENT ON DATABASE * TO spider_reader;
DENY LOAD ON ALL DATA TO spider_reader;
DENY EXECUTE ADMIN PROCEDURES ON DBMS TO spider_reader;
DENY EXECUTE BOOSTED PROCEDURE * ON DBMS TO spider_reader;
DENY EXECUTE PROCEDURE dbms.* ON DBMS TO spider_reader;
DENY EXECUTE PROCEDURE apoc.* ON DBMS TO spider_reader;
DENY EXECUTE FUNCTION apoc.* ON DBMS TO spider_reader;
DENY SHOW TRANSACTION (*) ON DATABASE * TO spider_reader;
DENY TERMINATE TRANSACTION (*) ON DATABASE * TO spider_reader;
CREATE USER spider_analyst IF NOT EXISTS SET PASSWORD $password CHANGE NOT REQUIRED;
GRANT ROLE spider_reader TO spider_analyst;
