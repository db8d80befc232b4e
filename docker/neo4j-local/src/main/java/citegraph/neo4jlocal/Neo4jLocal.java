package citegraph.neo4jlocal;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Embedded Neo4j Community with a Bolt connector on 127.0.0.1, for tests and local development.
 *
 * <p>Usage: {@code Neo4jLocal <home-dir> [port]}. The store goes to {@code <home-dir>/data}, Neo4j's own logs to
 * {@code <home-dir>/logs}. Environment: {@code CITEGRAPH_NEO4J_PASSWORD} (password of user {@code neo4j}, default
 * {@code citegraph-test}, at least 8 characters; the value {@code none} disables auth) and
 * {@code CITEGRAPH_NEO4J_PAGECACHE_MB} (default 256). Prints a line starting with {@code NEO4J-LOCAL READY} once Bolt
 * accepts connections with that password; SIGTERM shuts the databases down cleanly.
 */
public final class Neo4jLocal {
    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: Neo4jLocal <home-dir> [port]");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 7687;
        String password = System.getenv().getOrDefault("CITEGRAPH_NEO4J_PASSWORD", "citegraph-test");
        boolean auth = !password.equals("none");
        long pageCacheMb = Long.parseLong(System.getenv().getOrDefault("CITEGRAPH_NEO4J_PAGECACHE_MB", "256"));

        DatabaseManagementService service = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, auth)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pageCacheMb))
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                // Bolt's Netty event loops otherwise wait a 5 s quiet period each (~10 s) at shutdown;
                // the stores are already checkpointed and closed by then.
                .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("NEO4J-LOCAL stopping");
            service.shutdown();
            System.out.println("NEO4J-LOCAL stopped");
            stopped.countDown();
        }, "neo4j-local-shutdown"));

        if (auth) {
            // The built-in user neo4j starts with password "neo4j" and a forced change; set ours instead.
            // Runs on every start, so an existing data directory always ends up with the configured password.
            service.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
        }
        System.out.println("NEO4J-LOCAL READY bolt://127.0.0.1:" + port + " auth=" + (auth ? "neo4j" : "none")
                + " home=" + home);
        stopped.await();
    }
}
