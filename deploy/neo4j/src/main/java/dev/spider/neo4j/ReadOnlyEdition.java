package dev.spider.neo4j;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

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
 * Enterprise reader role goes through) and whose administration privileges are only the SHOW_* ones (CREATE/ALTER/
 * DROP USER, START/STOP DATABASE, TERMINATE TRANSACTIONS and admin procedures are refused). Everything else is
 * Neo4j's own code. These are Neo4j internal classes: a Neo4j upgrade may change them, and the launcher's
 * integration test (tests/integration/indexer/graph/test_neo4j_browser.py) checks the refusals on every run.
 */
final class ReadOnlyEdition {
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
            return new ReaderContext(context.subject(), readOnly(context.mode()), context.connectionInfo(),
                    context.database());
        }
    }

    /** READ where Neo4j would give FULL; a more restricted mode (credentials expired, access only) stays. */
    private static AccessMode readOnly(AccessMode mode) {
        return mode.allowsWrites() || mode.allowsSchemaWrites() ? StaticAccessMode.READ : mode;
    }

    private static final class ReaderContext extends SecurityContext {
        ReaderContext(AuthSubject subject, AccessMode mode, ClientConnectionInfo info, String database) {
            super(subject, mode, info, database);
        }

        @Override
        public PermissionState allowsAdminAction(AdminActionOnResource action) {
            PrivilegeAction privilege = privilege(action);
            return privilege != null && privilege.name().startsWith("SHOW_")
                    ? PermissionState.EXPLICIT_GRANT : PermissionState.EXPLICIT_DENY;
        }

        @Override
        public PermissionState allowExecuteAdminProcedure(int procedureId) {
            return PermissionState.EXPLICIT_DENY;
        }

        @Override
        public SecurityContext withMode(AccessMode mode) {
            return new ReaderContext(subject(), readOnly(mode), connectionInfo(), database());
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
