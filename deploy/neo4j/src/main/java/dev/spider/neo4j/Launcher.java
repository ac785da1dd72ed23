package dev.spider.neo4j;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.fleetmanagement.FleetManagementSettings;
import org.neo4j.graphdb.QueryExecutionException;

/**
 * Runs Neo4j Community embedded, reachable only over Bolt on 127.0.0.1, for spider's local graph.
 *
 * <p>Usage: {@code Launcher --home DIR --port N --password-file FILE [--pagecache 512m]}. Prints
 * {@code SPIDER-NEO4J READY bolt://127.0.0.1:N} once Bolt accepts the password from the file, and
 * {@code SPIDER-NEO4J FAILED <reason>} (then exits 1) if it cannot start. SIGTERM shuts down cleanly.
 */
public final class Launcher {
    private static final String HOST = "127.0.0.1";

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
        Path home = Path.of(required(opts, "--home")).toAbsolutePath();
        int port = Integer.parseInt(required(opts, "--port"));
        String password = Files.readString(Path.of(required(opts, "--password-file")), StandardCharsets.UTF_8).strip();
        if (password.isEmpty()) {
            throw new IllegalArgumentException("the password file is empty");
        }
        Long pageCache = SettingValueParsers.BYTES.parse(opts.getOrDefault("--pagecache", "512m"));
        Path imports = Files.createDirectories(home.resolve("import"));

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                // Loopback only: the server holds code from private repositories.
                .setConfig(GraphDatabaseSettings.default_listen_address, new SocketAddress(HOST))
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress(HOST, port))
                .setConfig(BoltConnector.enable_discovery, false)
                // Bolt otherwise idles ~10 s in shutdown after the databases have already stopped.
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofSeconds(1))
                .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, Duration.ZERO)
                .setConfig(HttpConnector.enabled, false)
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
                .setConfig(FleetManagementSettings.fleet_manager_enabled, false)
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown, "spider-neo4j-shutdown"));

        setPassword(dbms, password);
        System.out.println("SPIDER-NEO4J READY bolt://" + HOST + ":" + port);
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
