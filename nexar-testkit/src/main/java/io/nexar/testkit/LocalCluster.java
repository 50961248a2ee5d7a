package io.nexar.testkit;

import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.internal.comm.TransportCommunicator;
import io.nexar.internal.transport.InProcessFabric;
import io.nexar.internal.transport.InProcessTransport;
import io.nexar.internal.transport.RelayTransport;
import io.nexar.internal.transport.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A cluster of {@code n} ranks inside one JVM, connected by the in-process transport (no network, but every frame
 * goes through the real wire codec). Runs one body per rank, each on its own virtual thread, and joins them under a
 * deadline.
 *
 * <pre>{@code
 * try (var cluster = LocalCluster.start(4)) {
 *     Map<Integer, Integer> got = cluster.onEachRank(c -> {
 *         if (c.rank() == 0) { c.send(1, 7, new int[] {42}); return 0; }
 *         if (c.rank() == 1) { int[] x = new int[1]; c.recv(0, 7, x); return x[0]; }
 *         return -1;
 *     });
 * }
 * }</pre>
 *
 * <p>When a body throws, that rank is marked failed at once, so ranks waiting for it fail fast with a
 * {@link io.nexar.PeerFailedException} instead of timing out, and {@link #onEachRank} throws a
 * {@link RankFailedException} whose cause is the first failure. A cluster whose run failed is closed.
 */
public final class LocalCluster implements TestCluster {
    /** How long {@link #onEachRank} waits for all bodies by default. */
    public static final Duration DEFAULT_RUN_TIMEOUT = Duration.ofSeconds(60);

    private final InProcessFabric fabric;
    private final List<Communicator> communicators;
    private final List<Transport> transports;
    private final Duration runTimeout;

    private LocalCluster(int worldSize, NexarConfig config, Duration runTimeout) {
        this.fabric = InProcessFabric.create(worldSize, config);
        this.runTimeout = runTimeout;
        var list = new ArrayList<Communicator>(worldSize);
        var used = new ArrayList<Transport>(worldSize);
        for (int rank = 0; rank < worldSize; rank++) {
            InProcessTransport t = fabric.endpoint(rank);
            Transport relaying = RelayTransport.over(t, t.router(), config); // t itself on a full mesh
            used.add(relaying);
            list.add(TransportCommunicator.world(relaying, t.router(), config, relaying::close));
        }
        this.communicators = List.copyOf(list);
        this.transports = List.copyOf(used);
    }

    /**
     * Starts {@code worldSize} ranks with the configuration from the environment.
     *
     * @param worldSize the number of ranks, at least 1
     * @return the running cluster; close it
     */
    public static LocalCluster start(int worldSize) {
        return start(worldSize, NexarConfig.fromEnvironment());
    }

    /**
     * Starts {@code worldSize} ranks with {@code config}.
     *
     * @param worldSize the number of ranks, at least 1
     * @param config the configuration of every rank
     * @return the running cluster; close it
     */
    public static LocalCluster start(int worldSize, NexarConfig config) {
        return start(worldSize, config, DEFAULT_RUN_TIMEOUT);
    }

    /**
     * Starts {@code worldSize} ranks with {@code config}; {@link #onEachRank} gives up after {@code runTimeout}.
     *
     * @param worldSize the number of ranks, at least 1
     * @param config the configuration of every rank
     * @param runTimeout how long {@link #onEachRank} waits for all bodies
     * @return the running cluster; close it
     * @throws IllegalArgumentException if worldSize is less than 1
     */
    public static LocalCluster start(int worldSize, NexarConfig config, Duration runTimeout) {
        return new LocalCluster(worldSize, config, runTimeout);
    }

    @Override
    public int worldSize() {
        return communicators.size();
    }

    @Override
    public Communicator communicator(int rank) {
        return communicators.get(rank);
    }

    /**
     * Runs {@code body} on every rank at once, each on a virtual thread named {@code nexar-local-rank-R}, and
     * returns the results by rank.
     *
     * @param <T> the type of a body's result
     * @param body the code each rank runs with its world communicator
     * @return the body's results by rank
     * @throws RankFailedException if any body threw (cause: the first failure) or the run timed out (with the
     *                             stacks of the ranks still running)
     */
    @Override
    public <T> Map<Integer, T> onEachRank(RankBody<T> body) {
        return RankRunner.run("LocalCluster", "nexar-local-rank-", communicators, runTimeout, body,
                (rank, error) -> fabric.endpoint(rank).fail(error), this::close);
    }

    /**
     * Test fault: rank {@code rank}'s process dies without a word; every other rank hears of it at once, as its
     * failure detector would (with setting {@code recovery.policy} deciding what follows).
     *
     * @param rank the rank whose process dies
     */
    public void crash(int rank) {
        fabric.endpoint(rank).crash("crashed (test fault: its process died)");
    }

    /**
     * Test fault: rank {@code observer} alone loses rank {@code victim} (a partial partition): it excludes it, as its
     * failure detector would after the heartbeat timeout; {@code victim} stays alive.
     *
     * @param observer the rank that loses the victim
     * @param victim the rank it excludes
     * @param why the reason the observer reports, completing "rank N ..."
     */
    public void suspect(int observer, int victim, String why) {
        fabric.endpoint(observer).exclude(victim, why);
    }

    /** The transport rank {@code rank}'s communicators use: its endpoint, or a relaying transport over it. */
    Transport transport(int rank) {
        return transports.get(rank);
    }

    /** The in-process endpoint of rank {@code rank}. */
    InProcessTransport endpoint(int rank) {
        return fabric.endpoint(rank);
    }

    @Override
    public long unexpectedBytes(int rank) {
        return fabric.endpoint(rank).mailbox().storedBytes();
    }

    /** Closes every rank's communicator. Idempotent. */
    @Override
    public void close() {
        for (Communicator c : communicators) {
            c.close();
        }
    }

}
