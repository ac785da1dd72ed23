package dev.spider.neo4j;

import java.util.Set;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.event.TransactionData;
import org.neo4j.graphdb.event.TransactionEventListener;

/**
 * The second, independent guard of read-only users (the first is {@link ReadOnlyEdition}'s READ access mode): a
 * {@link TransactionEventListener} on the graph database fails the commit of any transaction of such a user that
 * changes anything. The kernel calls {@code beforeCommit} whenever the transaction state has changes of any kind
 * ({@code ReadableTransactionState.hasChanges()}: nodes, relationships, properties, labels, indexes and
 * constraints alike), whatever public API or Cypher made them. Neo4j allows no listener on {@code system}.
 */
final class ReadOnlyUsers implements TransactionEventListener<Void> {
    static final String REFUSAL = "spider: user %s is read-only; this transaction would change %s, so it was rolled back";

    private final Set<String> users;
    private final String database;

    private ReadOnlyUsers(Set<String> users, String database) {
        this.users = users;
        this.database = database;
    }

    /** Guards every database but system (Neo4j refuses listeners there; {@link ReadOnlyEdition} guards it). */
    static void install(DatabaseManagementService dbms, String... users) {
        for (String name : dbms.listDatabases()) {
            if (GraphDatabaseSettings.SYSTEM_DATABASE_NAME.equals(name)) {
                continue;
            }
            dbms.registerTransactionEventListener(name, new ReadOnlyUsers(Set.of(users), name));
        }
    }

    @Override
    public Void beforeCommit(TransactionData data, Transaction transaction, GraphDatabaseService db) {
        String user = data.username();
        if (user != null && users.contains(user)) {
            throw new ReadOnlyViolation(String.format(REFUSAL, user, "system".equals(database)
                    ? "users, privileges or databases (the system database)"
                    : "the graph or its schema (database " + database + ")"));
        }
        return null;
    }

    @Override
    public void afterCommit(TransactionData data, Void state, GraphDatabaseService db) {}

    @Override
    public void afterRollback(TransactionData data, Void state, GraphDatabaseService db) {}

    /** The reason the client sees (Neo4j wraps it in its "transaction handler failed" error). */
    static final class ReadOnlyViolation extends RuntimeException {
        ReadOnlyViolation(String message) {
            super(message);
        }
    }
}
