package io.nexar.transport.quic;

import io.netty.handler.codec.quic.Quic;
import io.nexar.ClusterFormationException;
import io.nexar.Communicator;
import io.nexar.ErrorContext;
import io.nexar.InvalidConfigurationException;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.SeedlessLaunch;
import io.nexar.internal.cluster.Admissions;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.comm.TransportCommunicator;
import io.nexar.internal.config.Units;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.transport.InboundRouter;
import io.nexar.internal.transport.Newcomer;
import io.nexar.internal.transport.RelayTransport;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.LogContext;
import io.nexar.spi.TransportProvider;
import io.nexar.transport.quic.bulk.Addresses;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import io.nexar.transport.quic.bulk.LaneTls;
import io.nexar.transport.quic.formation.Enrolment;
import io.nexar.transport.quic.formation.SeedOptions;
import io.nexar.transport.quic.formation.SeedPoll;
import io.nexar.transport.quic.formation.SeedRenewal;
import io.nexar.transport.quic.formation.SeedServer;
import io.nexar.transport.quic.formation.WorkerEnrolment;
import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.JoinToken;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The QUIC transport as a {@link TransportProvider}, found by {@code Nexar.join()} through
 * {@link java.util.ServiceLoader}: enrols with the seed (CSR, certificate, peer table), binds QUIC and the TLS bulk
 * lane, connects to every other member and returns the world communicator.
 *
 * <p>Enrolment must publish this member's addresses before it has a rank or a certificate, which the transport
 * needs; so the listeners are bound first, on the address and within the ports of settings {@code bind.address} and
 * {@code port.range}, and handed to the transport, which keeps them ({@link Listeners}: no port is released and bound
 * again). The addresses published are those of {@code advertise.address} ({@link NetworkSettings}).
 */
public final class QuicTransportProvider implements TransportProvider {
    private static final Logger LOG = LoggerFactory.getLogger(QuicTransportProvider.class);
    /** Bound on the connection to the seed and each read of a certificate renewal. */
    private static final Duration RENEWAL_TIMEOUT = Duration.ofSeconds(30);


    @Override
    public String name() {
        return "quic";
    }

    @Override
    public boolean isAvailable() {
        return Quic.isAvailable();
    }

    @Override
    public String detail() {
        String setting;
        try {
            setting = NexarConfig.fromEnvironment().tlsEngine().key();
        } catch (RuntimeException badConfig) { // reported where the configuration is used
            setting = "auto";
        }
        String lanes = "; TCP lanes: TLS 1.3 through " + LaneTls.describe(setting);
        return (Quic.isAvailable() ? "native QUIC (quiche) loaded" : "native QUIC not loaded: "
                + Quic.unavailabilityCause()) + lanes + NativeModules.hint();
    }

    @Override
    public Communicator join(String joinString, int requestedRank, NexarConfig config, Duration formationTimeout) {
        return join(joinString, requestedRank, config, formationTimeout, null);
    }

    /**
     * Starts the seed in this process, listening at the join string's host and port (that address if it is this
     * host's, else the wildcard of its family), with the join string's token and a fresh CA, and joins it as rank 0
     * over the network like every other rank. The seed closes with the communicator.
     */
    @Override
    public Communicator joinHostingSeed(String joinString, int worldSize, NexarConfig config,
                                        Duration formationTimeout) {
        JoinString js = JoinString.parse(joinString);
        return hostSeed(js.host(), js.port(), " (MASTER_ADDR:MASTER_PORT)", js.token(), worldSize, config,
                formationTimeout, port -> { });
    }

    /**
     * As {@link #joinHostingSeed(String, int, NexarConfig, Duration)}, with the seed's address and token from the
     * launch; port 0 binds a port the kernel picks, which {@link SeedlessLaunch#onSeedListening()} is told before
     * rank 0 enrols.
     */
    @Override
    public Communicator joinHostingSeed(SeedlessLaunch launch, NexarConfig config) {
        if (launch.rank() != 0) {
            throw new IllegalArgumentException("rank " + launch.rank() + " cannot host the seed: rank 0 does");
        }
        JoinToken token;
        try {
            token = JoinToken.parse(launch.token());
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationException("token", "***", "a join token: " + e.getMessage());
        }
        return hostSeed(launch.seedHost(), launch.seedPort(), "", token, launch.worldSize(), config,
                launch.formationTimeout(), launch.onSeedListening());
    }

    /** {@code source} names where the address came from, after it in an error message. */
    private Communicator hostSeed(String host, int port, String source, JoinToken token, int worldSize,
                                  NexarConfig config, Duration formationTimeout, IntConsumer onListening) {
        InetSocketAddress bind = seedBindAddress(host, port);
        String where = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        SeedServer seed;
        try {
            seed = SeedServer.start(SeedOptions.builder(worldSize).bindAddress(bind).token(token)
                    .formationDeadline(formationTimeout).advertisedHost(host).certValidity(config.certValidity())
                    .build());
        } catch (IOException e) {
            throw new ClusterFormationException(new ErrorContext(Operation.JOIN, 0, worldSize, -1, -1, -1, -1),
                    "failed: rank 0 cannot start the seed at " + where + source + ": " + e.getMessage(), e);
        }
        try {
            onListening.accept(seed.boundAddress().getPort());
            return join(seed.joinString(), 0, config, formationTimeout, seed);
        } catch (RuntimeException e) {
            seed.close();
            throw e;
        }
    }

    /**
     * The seed host's own address if it is one of this host's, otherwise the wildcard of its family; the wildcard too
     * when the name does not resolve yet (a Kubernetes pod's DNS name may appear after the pod starts).
     */
    private static InetSocketAddress seedBindAddress(String seedHost, int port) {
        try {
            InetAddress host = InetAddress.getByName(seedHost);
            if (host.isLoopbackAddress() || host.isAnyLocalAddress()
                    || java.net.NetworkInterface.getByInetAddress(host) != null) {
                return new InetSocketAddress(host, port);
            }
            return new InetSocketAddress(InetAddress.getByName(host instanceof Inet6Address ? "::" : "0.0.0.0"),
                    port);
        } catch (IOException e) {
            return new InetSocketAddress(port);
        }
    }

    private Communicator join(String joinString, int requestedRank, NexarConfig config, Duration formationTimeout,
                              SeedServer hostedSeed) {
        Deadline deadline = Deadline.after(formationTimeout);
        JoinString join = parse(joinString);
        boolean elastic = config.joinElastic();
        if (elastic && requestedRank >= 0) {
            throw new IllegalArgumentException("a worker joining a running cluster (join.elastic) cannot request a"
                    + " rank; it gets the next free one");
        }
        NetworkSettings net = NetworkSettings.of(config, join);
        BulkLaneOptions bulk = bulkOptions(config);
        // bound once here and kept: enrolment publishes their ports, the transport takes them over
        Listeners listeners = Listeners.bind(net.bindHost(), config.portRange(),
                bulk.mode() != BulkLaneOptions.Mode.OFF, net.portRangeSetting());
        Enrolment enrolment;
        try {
            InetSocketAddress quic = net.advertised(listeners.udpAddress());
            InetSocketAddress bulkAddress = listeners.tcpAddress() == null ? null
                    : net.advertised(listeners.tcpAddress());
            long leftNanos = deadline.remainingNanos();
            if (leftNanos <= 0) {
                throw new ClusterFormationException(ErrorContext.of(Operation.JOIN), "failed: the formation"
                        + " deadline of " + Units.formatRounded(formationTimeout) + " passed before enrolment, while"
                        + " this process bound its listeners (" + Addresses.format(listeners.udpAddress()) + ")");
            }
            Duration left = Duration.ofNanos(leftNanos);
            enrolment = elastic ? WorkerEnrolment.joinRunning(joinString, quic, bulkAddress, left)
                    : WorkerEnrolment.join(joinString, requestedRank, quic, bulkAddress, left);
        } catch (RuntimeException e) {
            listeners.close();
            throw e;
        }
        if (elastic) { // the members connect within their collective timeout once the seed admitted this worker
            deadline = Deadline.after(config.collectiveTimeout());
        }
        var router = new InboundRouter(new Mailbox(config.unexpectedMaxBytes()),
                new CollectiveEngine(config.unexpectedMaxBytes()));
        var transport = new QuicTransport(enrolment.rank(), enrolment.worldSize(), enrolment.credentials(), config,
                listeners, router, bulk);
        JoinString js = JoinString.parse(joinString);
        // a token-only enrolment authenticated the seed's CA: later polls and renewals pin it
        String pinned = js.tokenOnly()
                ? js.pinning(ClusterCa.fingerprint(enrolment.credentials().clusterCa())).format() : joinString;
        transport.renewCertificatesWith(current -> SeedRenewal.renew(pinned, current, RENEWAL_TIMEOUT));
        Runnable onClose = () -> {
            String gaveUp = router.membership() == null ? null : router.membership().aborted();
            try (var mdc = LogContext.scope(transport.rank(), transport.worldSize(), 0)) {
                LOG.info("close: world rank {} closes its world communicator{}", transport.rank(),
                        gaveUp != null ? " after it gave up: " + gaveUp : "");
            }
            if (gaveUp != null) {
                transport.failAfter(gaveUp);
            } else {
                transport.close();
            }
            router.close("the communicator was closed");
            if (hostedSeed != null) {
                hostedSeed.close();
            }
        };
        TransportCommunicator world;
        // the formation's lines on this thread (listening, bulk lanes, fallbacks) carry the rank; restored after
        try (var formationMdc = LogContext.scope(enrolment.rank(), enrolment.worldSize(), -1)) {
            transport.bind();
            if (elastic) {
                var a = enrolment.admission();
                int[] newcomers = a.newcomers().stream().mapToInt(e -> e.rank()).toArray();
                // a sparse topology: the grown world's graph, the one the members switch to when they admit this
                // worker; links to its neighbours in it only (the seed listed every member and newcomer)
                Transport relaying = RelayTransport.overAdmitted(transport, router, config, enrolment.worldSize(),
                        java.util.stream.IntStream.concat(java.util.Arrays.stream(a.members()),
                                java.util.Arrays.stream(newcomers)).toArray());
                List<PeerInfo> peers = enrolment.peers();
                if (relaying instanceof RelayTransport r) {
                    var graph = r.routes().graph();
                    peers = peers.stream().filter(p -> p.rank() == transport.rank()
                            || graph.adjacent(transport.rank(), p.rank())).toList();
                }
                transport.connectAdmitted(peers, deadline);
                if (relaying instanceof RelayTransport r) {
                    r.linksFormed();
                }
                world = TransportCommunicator.admitted(relaying, router, config,
                        new Admissions.Ticket(a.communicator(), a.generation(), a.members()), newcomers,
                        closing(relaying, transport, router, onClose));
            } else {
                // a sparse topology: messages to non-neighbours go through relays (the transport itself otherwise);
                // attached before connecting, since neighbours that formed first relay to this rank at once
                Transport relaying = RelayTransport.over(transport, router, config);
                transport.connect(enrolment.peers(), deadline);
                if (relaying instanceof RelayTransport r) {
                    r.linksFormed();
                }
                world = TransportCommunicator.world(relaying, router, config,
                        closing(relaying, transport, router, onClose));
            }
        } catch (RuntimeException e) {
            transport.close();
            router.close("formation failed");
            throw e;
        }
        try (var mdc = LogContext.scope(world.rank(), world.worldSize(), 0)) {
            LOG.info("formed: world rank {} of {} is connected to every peer{}", world.rank(), world.worldSize(),
                    elastic ? " (joined the running cluster)" : "");
        }
        world.admissions(new SeedAdmissions(pinned));
        if (elastic) {
            try {
                world.awaitAdmission();
            } catch (RuntimeException e) {
                world.close();
                throw new ClusterFormationException(new ErrorContext(Operation.JOIN, enrolment.rank(),
                        enrolment.worldSize(), 0, -1, -1, -1), "failed: connected to the running"
                        + " cluster as world rank " + enrolment.rank() + " but the members did not admit it: "
                        + e.getMessage(), e);
            }
        }
        return world;
    }

    /**
     * What closing the world communicator runs: {@code onClose}, after waiting on a sparse topology until every rank
     * closed, since the other ranks may still need this one as a relay.
     */
    private static Runnable closing(Transport relaying, QuicTransport transport, InboundRouter router,
                                    Runnable onClose) {
        if (!(relaying instanceof RelayTransport relay)) {
            return onClose;
        }
        return () -> {
            if (router.membership() == null || router.membership().aborted() == null) {
                try (var mdc = LogContext.scope(transport.rank(), transport.worldSize(), 0)) {
                    relay.quiesce(Deadline.after(relay.quiesceTimeout()));
                }
            }
            relay.stopRelaying();
            onClose.run();
        };
    }

    /**
     * Parses the join string.
     *
     * @throws InvalidConfigurationException (setting {@code joinString}, as the SPI says) naming what is wrong, with
     *         the token hidden
     */
    static JoinString parse(String joinString) {
        try {
            return JoinString.parse(joinString);
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationException("joinString", JoinString.redact(joinString.strip()),
                    EXPECTED_JOIN_STRING + "; " + e.getMessage());
        }
    }

    /** What a join string looks like, completing "expected ...". */
    public static final String EXPECTED_JOIN_STRING =
            "the nexar://HOST:PORT?token=SECRET&ca=sha256:FINGERPRINT line that `nexar seed` prints";

    /** Rank 0's source of waiting workers at a grow(): the seed, asked with the join string's token. */
    private record SeedAdmissions(String joinString) implements Admissions {
        @Override
        public List<Newcomer> admit(Ticket ticket, int max, Deadline deadline) {
            var a = SeedPoll.admit(joinString, max, ticket.communicator(), ticket.generation(), ticket.worldRanks(),
                    Duration.ofNanos(Math.max(1, deadline.remainingNanos())));
            return a.newcomers().stream().map(e -> PeerDescriptor.encode(PeerInfo.of(e))).toList();
        }
    }

    /** Settings {@code bulk} and {@code bulk.threshold}. */
    static BulkLaneOptions bulkOptions(NexarConfig config) {
        var mode = switch (config.bulk()) {
            case TCP_PLAIN -> BulkLaneOptions.Mode.TCP_PLAIN;
            case QUIC -> BulkLaneOptions.Mode.OFF;
            case TLS -> BulkLaneOptions.Mode.TLS;
        };
        return new BulkLaneOptions(mode, config.bulkThresholdBytes());
    }
}
