package io.nexar.transport.quic;

import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.comm.TransportCommunicator;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.InboundRouter;
import io.nexar.internal.util.Deadline;
import io.nexar.testkit.RankBody;
import io.nexar.testkit.RankFailedException;
import io.nexar.testkit.RankRunner;
import io.nexar.testkit.TestCluster;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import io.nexar.transport.quic.security.ClusterCa;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;

/**
 * {@code n} {@link QuicTransport}s in one JVM on a loopback address (127.0.0.1 or ::1), each with its own
 * {@link InboundRouter} (a {@link Mailbox} and a {@link CollectiveEngine}) and world communicator, formed over real
 * QUIC (and, by default, the TLS bulk lane) with certificates from a test CA. Runs bodies on virtual threads like
 * {@link io.nexar.testkit.LocalCluster}: when a body throws, its rank's transport fails (peers get a failure Goodbye
 * and fail fast) and the run throws a {@link RankFailedException}.
 */
public final class QuicTestCluster implements TestCluster {
    /** One CA for the whole test JVM: generating keys is the slow part of starting a cluster. */
    public static final ClusterCa CA = ClusterCa.generate();
    private static final Map<String, MemberCredentials> CREDENTIALS = new ConcurrentHashMap<>();
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(45);
    private static final Duration FORM_TIMEOUT = Duration.ofSeconds(15);

    private final List<QuicTransport> transports;
    private final List<InboundRouter> routers;
    private final List<Communicator> communicators;

    private QuicTestCluster(List<QuicTransport> transports, List<InboundRouter> routers, NexarConfig config) {
        this.transports = transports;
        this.routers = routers;
        var list = new ArrayList<Communicator>();
        for (int r = 0; r < transports.size(); r++) {
            QuicTransport t = transports.get(r);
            InboundRouter in = routers.get(r);
            // a sparse topology: messages to non-neighbours go through relays (attached in form, before connect)
            var relaying = in.relayOr(t);
            list.add(TransportCommunicator.world(relaying, in, config, () -> {
                relaying.close();
                in.close("the communicator was closed");
            }));
        }
        this.communicators = List.copyOf(list);
    }

    /** The credentials of member {@code "m<rank>"} issued by {@link #CA} (cached). */
    public static MemberCredentials credentials(int rank) {
        return CREDENTIALS.computeIfAbsent("m" + rank, CA::issueSelf);
    }

    /**
     * What the TCP lanes of one pair can hold for a receiver that reads nothing, beyond its store: the kernel's
     * receive and send buffers (loopback autotunes them up to 32 and 4 MiB here) and the two 512 KiB output buffers,
     * with room to spare.
     */
    static final long TCP_BUFFERED_BYTES = 48L << 20;

    /** Starts {@code worldSize} ranks on {@code host} with the default bulk lane (TLS, every message on TCP). */
    static QuicTestCluster start(int worldSize, NexarConfig config, InetAddress host) {
        return start(worldSize, config, host, BulkLaneOptions.defaults());
    }

    /** Starts {@code worldSize} ranks on {@code host}, each with a mailbox and a collective engine. */
    static QuicTestCluster start(int worldSize, NexarConfig config, InetAddress host, BulkLaneOptions bulk) {
        var routers = new ArrayList<InboundRouter>();
        for (int r = 0; r < worldSize; r++) {
            routers.add(new InboundRouter(new Mailbox(config.unexpectedMaxBytes()),
                    new CollectiveEngine(config.unexpectedMaxBytes())));
        }
        var transports = form(worldSize, config, host, QuicTestCluster::credentials, routers::get, bulk);
        return new QuicTestCluster(transports, routers, config);
    }

    /**
     * Binds and connects {@code worldSize} transports concurrently (one virtual thread per rank) and returns them,
     * or closes them all and throws the first rank's formation error.
     */
    static List<QuicTransport> form(int worldSize, NexarConfig config, InetAddress host,
                                    IntFunction<MemberCredentials> credentials, IntFunction<InboundHandler> handlers) {
        return form(worldSize, config, host, credentials, handlers, BulkLaneOptions.defaults());
    }

    /** {@link #form(int, NexarConfig, InetAddress, IntFunction, IntFunction)} with the given bulk lane. */
    static List<QuicTransport> form(int worldSize, NexarConfig config, InetAddress host,
                                    IntFunction<MemberCredentials> credentials, IntFunction<InboundHandler> handlers,
                                    BulkLaneOptions bulk) {
        var transports = new ArrayList<QuicTransport>();
        var relays = new ArrayList<io.nexar.internal.transport.Transport>();
        var peers = new ArrayList<PeerInfo>();
        for (int r = 0; r < worldSize; r++) {
            MemberCredentials c = credentials.apply(r);
            InboundHandler handler = handlers.apply(r);
            var t = new QuicTransport(r, worldSize, c, config, new InetSocketAddress(host, 0), handler, bulk);
            // sparse topology: relays ready before any neighbour sends
            relays.add(handler instanceof InboundRouter router
                    ? io.nexar.internal.transport.RelayTransport.over(t, router, config) : t);
            transports.add(t);
            peers.add(new PeerInfo(r, "m" + r, t.bind(), t.bulkAddress()));
        }
        var errors = new AtomicReferenceArray<RuntimeException>(worldSize);
        var threads = new ArrayList<Thread>();
        Deadline deadline = Deadline.after(FORM_TIMEOUT);
        for (int r = 0; r < worldSize; r++) {
            final int rank = r;
            threads.add(Thread.ofVirtual().name("form-rank-" + r).start(() -> {
                try {
                    transports.get(rank).connect(peers, deadline);
                    if (relays.get(rank) instanceof io.nexar.internal.transport.RelayTransport relay) {
                        relay.linksFormed(); // queued relayed frames go on from now on
                    }
                } catch (RuntimeException e) {
                    errors.set(rank, e);
                }
            }));
        }
        joinAll(threads);
        for (int r = 0; r < worldSize; r++) {
            if (errors.get(r) != null) {
                transports.forEach(QuicTransport::close);
                throw errors.get(r);
            }
        }
        return transports;
    }

    private static void joinAll(List<Thread> threads) {
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while forming the cluster", e);
            }
        }
    }

    /** The transport of {@code rank}. */
    QuicTransport transport(int rank) {
        return transports.get(rank);
    }

    @Override
    public int worldSize() {
        return transports.size();
    }

    @Override
    public Communicator communicator(int rank) {
        return communicators.get(rank);
    }

    @Override
    public <T> Map<Integer, T> onEachRank(RankBody<T> body) {
        return RankRunner.run("QuicTestCluster", "nexar-quic-test-rank-", communicators, RUN_TIMEOUT, body,
                (rank, error) -> {
                    transports.get(rank).fail(error);
                    routers.get(rank).close("this rank failed: " + error);
                }, this::close);
    }

    /** The mailbox of {@code rank} (point-to-point receive side). */
    Mailbox mailbox(int rank) {
        return routers.get(rank).mailbox();
    }

    @Override
    public long unexpectedBytes(int rank) {
        return routers.get(rank).mailbox().storedBytes();
    }

    @Override
    public void close() {
        for (Communicator c : communicators) {
            c.close();
        }
    }

}
