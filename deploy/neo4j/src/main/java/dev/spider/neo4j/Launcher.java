package dev.spider.neo4j;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import inet.ipaddr.IPAddressString;
import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.SettingValueParsers;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.Neo4jDatabaseManagementServiceBuilder;
import org.neo4j.fleetmanagement.FleetManagementSettings;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.server.configuration.ConfigurableServerModules;
import org.neo4j.server.configuration.ServerSettings;

/**
 * Runs Neo4j Community embedded, reachable only on 127.0.0.1, for spider's local graph.
 *
 * <p>Usage: {@code java -javaagent:spider-neo4j-launcher.jar ... Launcher --home DIR --port N --password-file FILE
 * [--pagecache 512m] [--http-port N --reader-password-file FILE]}. Bolt listens on the port; with
 * {@code --http-port} Neo4j's own HTTP connector serves Neo4j Browser (and nothing else) at
 * {@code http://127.0.0.1:N/browser/}, and the native user {@code reader} gets the password in the reader file.
 * That user may only read, with or without HTTP (see {@link ReadOnlyEdition} and {@link ReadOnlyUsers}). The agent,
 * {@link ExpressionGuard}, makes expressions stop with their transaction.
 * Prints {@code SPIDER-NEO4J READY bolt://127.0.0.1:N} once Bolt accepts the password from the file (then
 * {@code SPIDER-NEO4J BROWSER http://127.0.0.1:N/browser/} with HTTP on), and {@code SPIDER-NEO4J FAILED <reason>}
 * (then exits 1) if it cannot start. SIGTERM shuts down cleanly.
 */
public final class Launcher {
    private static final String HOST = "127.0.0.1";
    /** The native user analysts log in as (Neo4j Browser): read-only ({@link ReadOnlyEdition}, {@link ReadOnlyUsers}). */
    static final String READER = "reader";

    private Launcher() {}

    public static void main(String[] args) {
        try {
            run(parse(args));
        } catch (Throwable t) {
            Throwable root = t;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            t.printStackTrace();
            System.err.println("SPIDER-NEO4J FAILED " + oneLine(t) + (root == t ? "" : " (cause: " + oneLine(root) + ")"));
            System.exit(1);
        }
    }

    private static void run(Map<String, String> opts) throws Exception {
        if (!ExpressionGuard.installed()) {
            throw new IllegalStateException("start java with -javaagent:<this launcher's jar>: without ExpressionGuard "
                    + "Neo4j runs an expression on past its transaction's timeout and cancel");
        }
        Path home = Path.of(required(opts, "--home")).toAbsolutePath();
        int port = Integer.parseInt(required(opts, "--port"));
        String password = Files.readString(Path.of(required(opts, "--password-file")), StandardCharsets.UTF_8).strip();
        if (password.isEmpty()) {
            throw new IllegalArgumentException("the password file is empty");
        }
        Long pageCache = SettingValueParsers.BYTES.parse(opts.getOrDefault("--pagecache", "512m"));
        Path imports = Files.createDirectories(home.resolve("import"));
        String httpPort = opts.get("--http-port");
        String readerPassword = null;
        if (httpPort != null) {
            readerPassword = Files.readString(Path.of(required(opts, "--reader-password-file")), StandardCharsets.UTF_8)
                    .strip();
            if (readerPassword.isEmpty()) {
                throw new IllegalArgumentException("the reader's password file is empty");
            }
        }

        // Neo4j Community in which the user `reader` may only read (ReadOnlyEdition, ReadOnlyUsers).
        Neo4jDatabaseManagementServiceBuilder builder = ReadOnlyEdition.builder(home, Set.of(READER))
                // Loopback only: the server holds code from private repositories.
                .setConfig(GraphDatabaseSettings.default_listen_address, new SocketAddress(HOST))
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress(HOST, port))
                .setConfig(BoltConnector.enable_discovery, false)
                // Bolt otherwise idles ~10 s in shutdown after the databases have already stopped.
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofSeconds(1))
                .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, Duration.ZERO)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.routing_enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                // A shared 2-core machine: a modest page cache; the heap is set by the caller (-Xmx).
                .setConfig(GraphDatabaseSettings.pagecache_memory, pageCache)
                // The graph is rebuilt from git at will, so old or preallocated transaction logs only use disk.
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                // Analyst Cypher is checked by spider (indexer/graph/cypher_gate.py); should a statement slip through, it
                // still cannot read the host's files (file URLs off; the import directory is an empty folder) nor
                // reach any address (LOAD CSV's address blocklist covers every IPv4 and IPv6 address).
                .setConfig(GraphDatabaseSettings.allow_file_urls, false)
                .setConfig(GraphDatabaseSettings.load_csv_file_url_root, imports)
                .setConfig(GraphDatabaseInternalSettings.cypher_ip_blocklist,
                        List.of(new IPAddressString("0.0.0.0/0"), new IPAddressString("::/0")))
                // A transaction that sets no timeout of its own ends after 15 minutes. spider's reads set theirs;
                // its writes are batches of seconds (the largest bench write, sphinx, takes ~1 s), and a writer
                // holds its repository's lock transaction only while it writes, so 15 minutes leaves a wide margin.
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(15))
                // A developer tool must not phone home.
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                .setConfig(FleetManagementSettings.fleet_manager_enabled, false);
        if (httpPort == null) {
            builder.setConfig(HttpConnector.enabled, false);
        } else {
            // Neo4j Browser, from the org.neo4j.client:neo4j-browser jar on the classpath, served by Neo4j's own web
            // server (the embedded DatabaseManagementServiceFactory starts it when the HTTP connector is on). Only
            // the BROWSER module: no HTTP transactional or Query API endpoints, so Cypher arrives over Bolt only
            // (the Browser speaks Bolt over WebSocket to the Bolt port), where every session logs in.
            int http = Integer.parseInt(httpPort);
            builder.setConfig(HttpConnector.enabled, true)
                    .setConfig(HttpConnector.listen_address, new SocketAddress(HOST, http))
                    .setConfig(HttpConnector.advertised_address, new SocketAddress(HOST, http))
                    .setConfig(ServerSettings.http_enabled_modules, EnumSet.of(ConfigurableServerModules.BROWSER))
                    .setConfig(ServerSettings.bolt_discoverable_address,
                            java.net.URI.create("bolt://" + HOST + ":" + port))
                    .setConfig(ServerSettings.allow_telemetry, false);
        }
        DatabaseManagementService dbms = builder.build();
        Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown, "spider-neo4j-shutdown"));

        setPassword(dbms, password);
        if (readerPassword != null) {
            ReadOnlyUsers.install(dbms, READER);
            setReader(dbms, readerPassword);
        }
        System.out.println("SPIDER-NEO4J READY bolt://" + HOST + ":" + port);
        if (httpPort != null) {
            System.out.println("SPIDER-NEO4J BROWSER http://" + HOST + ":" + httpPort + "/browser/");
        }
        System.out.flush();
        new CountDownLatch(1).await(); // the shutdown hook ends the process
    }

    /** Makes the password file authoritative on every start, so a new file simply takes effect. */
    private static void setPassword(DatabaseManagementService dbms, String password) {
        Map<String, Object> params = new HashMap<>();
        params.put("pw", password);
        try {
            dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
                    .executeTransactionally("ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", params);
        } catch (QueryExecutionException e) {
            // Neo4j refuses to "change" a password to itself; on a restart that is the expected case.
            if (!String.valueOf(e.getMessage()).contains("Old password and new password cannot be the same")) {
                throw e;
            }
        }
    }

    /** Creates the read-only user on first start; makes its password file authoritative on every start. */
    private static void setReader(DatabaseManagementService dbms, String password) {
        Map<String, Object> params = new HashMap<>();
        params.put("pw", password);
        var system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        system.executeTransactionally(
                "CREATE USER " + READER + " IF NOT EXISTS SET PASSWORD $pw CHANGE NOT REQUIRED", params);
        try {
            system.executeTransactionally("ALTER USER " + READER + " SET PASSWORD $pw CHANGE NOT REQUIRED", params);
        } catch (QueryExecutionException e) {
            if (!String.valueOf(e.getMessage()).contains("Old password and new password cannot be the same")) {
                throw e;
            }
        }
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --option value pairs, got: " + String.join(" ", args));
            }
            opts.put(args[i], args[i + 1]);
        }
        return opts;
    }

    private static String required(Map<String, String> opts, String name) {
        String value = opts.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing " + name);
        }
        return value;
    }

    private static String oneLine(Throwable t) {
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return message.replaceAll("\\s+", " ").strip();
    }
}
