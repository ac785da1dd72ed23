package dev.spider.neo4j;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.neo4j.configuration.Config;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilderImplementation;
import org.neo4j.dbms.systemgraph.SystemDatabaseProvider;
import org.neo4j.graphdb.factory.module.GlobalModule;
import org.neo4j.graphdb.factory.module.edition.AbstractEditionModule;
import org.neo4j.graphdb.factory.module.edition.CommunityEditionModule;
import org.neo4j.internal.kernel.api.connectioninfo.ClientConnectionInfo;
import org.neo4j.internal.kernel.api.security.AbstractSecurityLog;
import org.neo4j.internal.kernel.api.security.AccessMode;
import org.neo4j.internal.kernel.api.security.AdminAccessMode;
import org.neo4j.internal.kernel.api.security.AdminActionOnResource;
import org.neo4j.internal.kernel.api.security.AuthSubject;
import org.neo4j.internal.kernel.api.security.AuthenticationResult;
import org.neo4j.internal.kernel.api.security.LoginContext;
import org.neo4j.internal.kernel.api.security.PermissionState;
import org.neo4j.internal.kernel.api.security.PrivilegeAction;
import org.neo4j.internal.kernel.api.security.SecurityContext;
import org.neo4j.internal.kernel.api.security.StaticAccessMode;
import org.neo4j.kernel.api.security.AuthManager;
import org.neo4j.kernel.api.security.exception.InvalidAuthTokenException;
import org.neo4j.kernel.api.security.provider.SecurityProvider;
import org.neo4j.kernel.database.PrivilegeDatabaseReference;

/**
 * Neo4j Community with read-only users, which Community has no way to declare: it has no roles, every native user
 * gets full access ({@code BasicLoginContext}: {@code StaticAccessMode.FULL}) and every administration command
 * ({@code SecurityContext.allowsAdminAction} always answers EXPLICIT_GRANT).
 *
 * <p>This is the Community edition with one change: the authentication manager Bolt logs users in with is wrapped
 * so that a login of one of {@code readers} gets a security context whose access mode is
 * {@code StaticAccessMode.READ} (the kernel then refuses every write, schema change and new token: the checks an
 * Enterprise reader role goes through), whose administration privileges are only {@link #READER_SHOWS} (CREATE/ALTER/
 * DROP USER, START/STOP DATABASE, TERMINATE TRANSACTIONS, SHOW SETTINGS and admin procedures are refused), and which
 * may not call {@link #READER_DENIED_PROCEDURES}. Everything else is
 * Neo4j's own code. These are Neo4j internal classes: a Neo4j upgrade may change them, and the launcher's
 * integration test (tests/integration/indexer/graph/test_neo4j_browser.py) checks the refusals on every run.
 */
final class ReadOnlyEdition {
    /**
     * The administration commands a reader may run: SHOW INDEXES, CONSTRAINTS, TRANSACTIONS (its own and others', as
     * docs/security.md says), USERS, and ALIASES, ROLES and PRIVILEGES (Enterprise's: Community answers that it does
     * not support them, as Neo4j Browser expects). Not SHOW SETTINGS (they name the server's folders, ports and
     * limits), nor SERVERS, CONNECTIONS, secrets or credentials.
     */
    static final Set<PrivilegeAction> READER_SHOWS = Set.of(PrivilegeAction.SHOW_INDEX, PrivilegeAction.SHOW_CONSTRAINT,
            PrivilegeAction.SHOW_TRANSACTION, PrivilegeAction.SHOW_USER, PrivilegeAction.SHOW_ALIAS,
            PrivilegeAction.SHOW_ROLE, PrivilegeAction.SHOW_PRIVILEGE);
    /**
     * Procedures Community lets any user call that are no read of the graph: dbms.queryJmx describes the host (the
     * JVM's command line with the launcher's home and password-file paths, system properties, the user, the class
     * path); the resample procedures make the server rework its indexes.
     */
    static final Set<String> READER_DENIED_PROCEDURES = Set.of("dbms.queryJmx", "db.resampleIndex",
            "db.resampleOutdatedIndexes");

    private ReadOnlyEdition() {}

    static DatabaseManagementServiceBuilderImplementation builder(Path home, Set<String> readers) {
        return new DatabaseManagementServiceBuilderImplementation(home) {
            @Override
            protected Function<GlobalModule, AbstractEditionModule> getEditionFactory(Config config) {
                return global -> new CommunityEditionModule(global) {
                    @Override
                    public void createSecurityModule(GlobalModule globalModule, SystemDatabaseProvider systemDb) {
                        super.createSecurityModule(globalModule, systemDb);
                        setSecurityProvider(new ReadOnlyProvider(getSecurityProvider(), readers));
                    }
                };
            }
        };
    }

    /** The edition's security provider, its authentication managers wrapped (once: they are dependencies). */
    private static final class ReadOnlyProvider implements SecurityProvider {
        private final SecurityProvider inner;
        private final AuthManager auth;
        private final AuthManager inCluster;
        private final AuthManager domainSocket;

        ReadOnlyProvider(SecurityProvider inner, Set<String> readers) {
            this.inner = inner;
            this.auth = new ReadOnlyAuthManager(inner.authManager(), readers);
            this.inCluster = new ReadOnlyAuthManager(inner.inClusterAuthManager(), readers);
            this.domainSocket = new ReadOnlyAuthManager(inner.domainSocketAuthManager(), readers);
        }

        @Override
        public AuthManager authManager() {
            return auth;
        }

        @Override
        public AuthManager inClusterAuthManager() {
            return inCluster;
        }

        @Override
        public AuthManager domainSocketAuthManager() {
            return domainSocket;
        }
    }

    /** Logs in as Neo4j does; a reader's login context then authorizes read-only. Its lifecycle is the inner's. */
    private static final class ReadOnlyAuthManager extends AuthManager {
        private final AuthManager inner;
        private final Set<String> readers;

        ReadOnlyAuthManager(AuthManager inner, Set<String> readers) {
            this.inner = inner;
            this.readers = readers;
        }

        @Override
        public LoginContext login(Map<String, Object> authToken, ClientConnectionInfo info)
                throws InvalidAuthTokenException {
            return restrict(inner.login(authToken, info));
        }

        @Override
        public LoginContext impersonate(LoginContext context, String user) {
            return restrict(inner.impersonate(context, user));
        }

        private LoginContext restrict(LoginContext context) {
            AuthSubject subject = context == null ? null : context.subject();
            if (subject == null || subject.getAuthenticationResult() != AuthenticationResult.SUCCESS) {
                return context;
            }
            String user = subject.executingUser();
            return user != null && readers.contains(user) ? new ReaderLogin(context) : context;
        }
    }

    private static final class ReaderLogin extends LoginContext {
        private final LoginContext inner;

        ReaderLogin(LoginContext inner) {
            super(inner.subject(), inner.connectionInfo());
            this.inner = inner;
        }

        @Override
        public SecurityContext authorize(IdLookup idLookup, PrivilegeDatabaseReference database,
                AbstractSecurityLog securityLog, long transactionSequenceNumber) {
            SecurityContext context = inner.authorize(idLookup, database, securityLog, transactionSequenceNumber);
            Set<Integer> denied = READER_DENIED_PROCEDURES.stream()
                    .flatMap(name -> Arrays.stream(idLookup.getProcedureIds(name)).boxed())
                    .collect(Collectors.toUnmodifiableSet());
            return new ReaderContext(context.subject(), readOnly(context.mode(), denied), context.connectionInfo(),
                    context.database(), denied);
        }
    }

    /**
     * READ where Neo4j would give FULL (a more restricted mode, credentials expired or access only, stays), with the
     * procedures `denied` (ids) refused and no setting shown: the kernel asks the mode before it calls a procedure,
     * and SHOW SETTINGS lists only the settings the mode allows (so the reader's list is empty).
     */
    private static AccessMode readOnly(AccessMode mode, Set<Integer> denied) {
        AccessMode base = mode.allowsWrites() || mode.allowsSchemaWrites() ? StaticAccessMode.READ : mode;
        return (AccessMode) Proxy.newProxyInstance(AccessMode.class.getClassLoader(), new Class<?>[] {AccessMode.class},
                (proxy, method, args) -> {
                    if (refused(method.getName(), args, denied)) {
                        return PermissionState.EXPLICIT_DENY;
                    }
                    try {
                        return method.invoke(base, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static boolean refused(String check, Object[] args, Set<Integer> deniedProcedures) {
        return check.equals("allowsShowSetting")
                || check.equals("allowsExecuteProcedure") && deniedProcedures.contains((Integer) args[0]);
    }

    private static final class ReaderContext extends SecurityContext {
        private final Set<Integer> deniedProcedures;

        ReaderContext(AuthSubject subject, AccessMode mode, ClientConnectionInfo info, String database,
                Set<Integer> deniedProcedures) {
            super(subject, mode, info, database);
            this.deniedProcedures = deniedProcedures;
        }

        @Override
        public PermissionState allowsAdminAction(AdminActionOnResource action) {
            PrivilegeAction privilege = privilege(action);
            return privilege != null && READER_SHOWS.contains(privilege)
                    ? PermissionState.EXPLICIT_GRANT : PermissionState.EXPLICIT_DENY;
        }

        @Override
        public PermissionState allowExecuteAdminProcedure(int procedureId) {
            return PermissionState.EXPLICIT_DENY;
        }

        @Override
        public SecurityContext withMode(AccessMode mode) {
            return new ReaderContext(subject(), readOnly(mode, deniedProcedures), connectionInfo(), database(),
                    deniedProcedures);
        }

        @Override
        public SecurityContext withMode(AdminAccessMode adminAccessMode) {
            return this;
        }
    }

    private static final Field ACTION = actionField();

    private static Field actionField() {
        try {
            Field field = AdminActionOnResource.class.getDeclaredField("action");
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this Neo4j's AdminActionOnResource has no action field", e);
        }
    }

    /** The privilege an administration check asks for; null (refused) if it cannot be read. */
    private static PrivilegeAction privilege(AdminActionOnResource action) {
        try {
            return action == null ? null : (PrivilegeAction) ACTION.get(action);
        } catch (ReflectiveOperationException | ClassCastException e) {
            return null;
        }
    }
}
