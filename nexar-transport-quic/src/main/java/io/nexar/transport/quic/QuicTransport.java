package io.nexar.transport.quic;

import io.netty.channel.EventLoop;
import io.nexar.ClusterFormationException;
import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.internal.config.Units;
import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.InboundRouter;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Progress;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.security.PeerVerifier;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import io.nexar.internal.transport.Newcomer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The QUIC transport of one rank: one QUIC connection (mutual TLS 1.3, ALPN {@value QuicTuning#ALPN}) to every other
 * rank, with one long-lived ordered bidirectional stream per {@link Lane}, so lanes never block each other.
 *
 * <p>Life cycle: construct, {@link #bind()} (the UDP sockets exist, so the address can be published), then
 * {@link #connect} with the peer table; {@link #send} after that; {@link #close()} or {@link #fail} at the end. The
 * lower rank of each pair dials the higher one, so a pair never has two connections and two ranks never dial each
 * other at once; an acceptor refuses a connection from a higher rank, from a member that is not in the table, or
 * from a rank already connected. Both ends check that the peer's certificate chains to the cluster CA and names the
 * member that the peer table gives for that rank; then each lane starts with a Hello. Sends to the own rank are
 * delivered in-process. Every connection carries a heartbeat on the control lane every {@code heartbeat.interval}; a
 * peer from which nothing arrived for {@code heartbeat.timeout} is declared failed (docs/failure-model.md).
 *
 * <p>Threading: two Netty event-loop threads ({@code nexar-quic-r<rank>-io-<n>}: the listening and the dialling UDP
 * socket) move frames and call the {@link InboundHandler}; they never block. {@link #send} runs on the caller's
 * thread: it copies the message into a direct buffer and waits (bounded by the deadline) only while its lane has too
 * much queued; see {@link LaneStream}. {@link #connect} and {@link #close()} block the caller and must not run on an
 * event loop. Each TCP lane connection ({@link BulkConnection}) has a reader and a writer platform thread
 * ({@code nexar-bulk-r<rank>-p<peer>-<lane>-rx}, {@code -tx}); a thread that waits for a message reads its own lane's
 * connections for up to {@code poll.window} before the reader thread takes over, so a small message goes from the
 * socket to its receive without a thread hand-off (the {@link Progress} of the links, {@link PeerLinks}).
 *
 * <p>Failure: a connection that closes, times out, is reset or breaks the protocol marks its peer down once: the
 * handler's {@link InboundHandler#onPeerDown} is called and sends to that peer throw
 * {@link io.nexar.PeerFailedException}. A peer that closes normally is reported only after every message it sent
 * before its Goodbye was delivered. The handler is not closed by this transport: its owner closes it.
 */
public final class QuicTransport implements Transport {
    private static final Logger LOG = LoggerFactory.getLogger(QuicTransport.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final int rank;
    private volatile int worldSize;
    private final MemberCredentials credentials;
    private final NexarConfig config;
    private final InetSocketAddress bindAddress;
    /** Listeners bound before enrolment, taken over by {@link #bind()}; null when bind() binds bindAddress itself. */
    private final Listeners listeners;
    private final InboundHandler handler;
    private final QuicTuning tuning;
    private final BulkLaneOptions bulkOptions;
    private final PeerVerifier verifier;
    private final long incarnation = RANDOM.nextLong();
    /** The links, the peer table and the refused attempts; replaced whole under this transport's monitor. */
    private final PeerLinks links;
    private final Loopback loopback;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile String closedWhy;
    private volatile boolean heartbeatsPaused;
    private volatile QuicEndpoint endpoint;
    /** This member's credentials as renewed ({@link CertificateRenewal}); every handshake reads them. */
    private final CredentialSlot slot;
    /** The seed to renew the certificate from, or null; set before connect. */
    private volatile CertificateRenewal.Renewer renewer;
    /** The certificate's renewal and warning, planned at connect; stopped at close. */
    private volatile CertificateRenewal certificateRenewal;
    private boolean connectCalled;

    /**
     * Creates the transport with the default bulk lane ({@link BulkLaneOptions#defaults()}: TLS over TCP for every
     * message, with peers whose table entry has a bulk address); nothing is bound or started until
     * {@link #bind()}.
     *
     * @param rank this rank
     * @param worldSize the number of ranks
     * @param credentials this member's key, certificate chain and cluster CA
     * @param config frame limit ({@code max.frame.size}) and close timeout ({@code close.timeout})
     * @param bindAddress the UDP address to listen on; port 0 picks a free port; IPv4 or IPv6
     * @param handler receives inbound messages on event-loop threads; must not block
     * @throws IllegalArgumentException if rank is not in [0, worldSize)
     */
    public QuicTransport(int rank, int worldSize, MemberCredentials credentials, NexarConfig config,
                         InetSocketAddress bindAddress, InboundHandler handler) {
        this(rank, worldSize, credentials, config, bindAddress, handler, BulkLaneOptions.defaults());
    }

    /**
     * Creates the transport; nothing is bound or started until {@link #bind()}.
     *
     * @param bulk the bulk lane: off, TLS (the default) or plain TCP, and its threshold
     * @see #QuicTransport(int, int, MemberCredentials, NexarConfig, InetSocketAddress, InboundHandler)
     */
    public QuicTransport(int rank, int worldSize, MemberCredentials credentials, NexarConfig config,
                         InetSocketAddress bindAddress, InboundHandler handler, BulkLaneOptions bulk) {
        this(rank, worldSize, credentials, config, bindAddress, null, handler, bulk);
    }

    /**
     * Creates the transport on listeners bound before enrolment ({@link Listeners}); {@link #bind()} takes them over
     * and {@link #close()} releases them, even if bind() was never called.
     */
    QuicTransport(int rank, int worldSize, MemberCredentials credentials, NexarConfig config, Listeners listeners,
                  InboundHandler handler, BulkLaneOptions bulk) {
        this(rank, worldSize, credentials, config, listeners.udpAddress(), listeners, handler, bulk);
    }

    private QuicTransport(int rank, int worldSize, MemberCredentials credentials, NexarConfig config,
                          InetSocketAddress bindAddress, Listeners listeners, InboundHandler handler,
                          BulkLaneOptions bulk) {
        this.listeners = listeners;
        if (worldSize < 1 || rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " is not in [0, " + worldSize + ")");
        }
        this.rank = rank;
        this.worldSize = worldSize;
        this.credentials = Objects.requireNonNull(credentials, "credentials");
        this.slot = new CredentialSlot(credentials);
        this.config = Objects.requireNonNull(config, "config");
        this.bindAddress = Objects.requireNonNull(bindAddress, "bindAddress");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.bulkOptions = Objects.requireNonNull(bulk, "bulk");
        this.tuning = QuicTuning.forBindAddress(bindAddress.getAddress()).withHeartbeatTimeout(
                config.heartbeatTimeout());
        this.verifier = new PeerVerifier(credentials.clusterCa());
        long bulkThreshold = bulk.mode() == BulkLaneOptions.Mode.OFF ? Long.MAX_VALUE : bulk.thresholdBytes();
        long pollNanos = bulk.mode() == BulkLaneOptions.Mode.OFF ? 0 : config.pollWindow().toNanos();
        this.links = new PeerLinks(rank, worldSize, handler, bulkThreshold, pollNanos);
        this.loopback = new Loopback(rank, handler, config.maxFrameBytes());
        if (handler instanceof InboundRouter router) { // its receive sides poll this transport's TCP lanes
            router.drivenBy(links);
        }
    }

    /**
     * Binds the UDP sockets and starts the event loops; connections from peers are accepted from now on (and
     * identified once {@link #connect} gives the peer table).
     *
     * @return the QUIC address peers dial: publish it in the peer table
     * @throws ClusterFormationException if the address cannot be bound
     * @throws IllegalStateException if called twice or after close
     */
    public synchronized InetSocketAddress bind() {
        if (endpoint != null || closing.get()) {
            throw new IllegalStateException("bind() may be called once, before close()");
        }
        try {
            endpoint = listeners != null
                    ? QuicEndpoint.bind(this, slot, listeners, tuning, bulkOptions, config.closeTimeout())
                    : QuicEndpoint.bind(this, slot, bindAddress, tuning, bulkOptions, config.closeTimeout());
        } catch (Exception e) {
            closing.set(true);
            closed.complete(null);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new ClusterFormationException(context(-1), "failed: cannot bind UDP " + Texts.format(bindAddress)
                    + ": " + e, e);
        }
        LOG.debug("rank {} listens on QUIC {} ({})", rank, Texts.format(endpoint.localAddress()), endpoint.describe());
        return endpoint.localAddress();
    }

    /** The bound QUIC address, or null before {@link #bind()}. */
    public InetSocketAddress localAddress() {
        QuicEndpoint e = endpoint;
        return e == null ? null : e.localAddress();
    }

    /** The TCP bulk lane's address (publish it in the peer table), or null without a bulk lane or before bind. */
    public InetSocketAddress bulkAddress() {
        QuicEndpoint e = endpoint;
        return e == null ? null : e.bulkAddress();
    }

    /**
     * Forms a connection to every other rank: dials the higher ranks, accepts the lower ones, verifies every peer's
     * identity against {@code peers} and exchanges Hellos. Returns when every link is ready. With a sparse
     * {@code topology} (k-regular or hypercube) only the neighbours get a link and only they are accepted; the other
     * ranks are reached through a {@link io.nexar.internal.transport.RelayTransport} over this transport.
     *
     * @param peers one entry per rank (this rank's entry must name this member)
     * @param deadline when to give up
     * @throws ClusterFormationException naming the rank and why, at the first refused or failed link, or naming
     *         the ranks still missing (and any refused attempts) when the deadline passes; or if the topology cannot
     *         be built on this world size (a hypercube on a size that is not a power of two)
     * @throws IllegalArgumentException if the table does not fit this rank, world size or identity
     * @throws IllegalStateException if not bound, or called twice
     */
    public void connect(List<PeerInfo> peers, Deadline deadline) {
        var graph = io.nexar.internal.topology.NeighbourGraph.of(config.topology(), worldSize);
        if (graph.fullMesh()) {
            connect(peers, deadline, false);
        } else { // a sparse topology: links to the neighbours only, the rest through relays (RelayTransport)
            connect(peers.stream().filter(p -> p.rank() == rank || graph.adjacent(rank, p.rank())).toList(),
                    deadline, true);
        }
    }

    /**
     * Like {@link #connect(List, Deadline)} for a worker admitted into a running cluster: {@code peers} lists the
     * members and the newcomers only; ranks missing from it (members that failed or left) get no link.
     */
    public void connectAdmitted(List<PeerInfo> peers, Deadline deadline) {
        connect(peers, deadline, true);
    }

    private void connect(List<PeerInfo> peers, Deadline deadline, boolean sparse) {
        assertNotEventLoop();
        PeerTable t;
        PeerLink[] all;
        synchronized (this) {
            if (endpoint == null || connectCalled || closing.get()) {
                throw new IllegalStateException("connect() may be called once, after bind() and before close()");
            }
            connectCalled = true;
            t = sparse ? PeerTable.sparse(peers, rank, worldSize, credentials.memberId())
                    : PeerTable.of(peers, rank, worldSize, credentials.memberId());
            all = links.keepListed(t, worldSize);
            links.publish(t);
        }
        links.tableKnown(t);
        List<PeerLink> dialled = links.dialHigher(endpoint, all, t, deadline);
        // Each connection heartbeats (and watches its peer's) from the moment it is ready, not once every link and
        // bulk lane is: on a lossy link the others can take seconds (QUIC or SYN retransmits), and a peer whose own
        // formation finished earlier already counts our silence.
        synchronized (this) {
            if (!closing.get()) {
                endpoint.startHeartbeats(config.heartbeatInterval(), config.heartbeatTimeout());
            }
        }
        Formation.await(this, all, deadline, config.heartbeatTimeout());
        endpoint.connectBulk(dialled, t, deadline);
        watchCertificateLife();
    }

    /**
     * Renews this member's certificate from a seed before it expires ({@link CertificateRenewal}); call before
     * {@link #connect}. Without it, the member only warns at 80% of its certificate's life.
     *
     * @param seed asks the seed for a renewed chain for the same key
     */
    void renewCertificatesWith(CertificateRenewal.Renewer seed) {
        this.renewer = Objects.requireNonNull(seed, "seed");
    }

    /** This member's credentials now: the chain is the renewed one once a renewal succeeded. */
    MemberCredentials currentCredentials() {
        return slot.get();
    }

    /**
     * Plans the certificate's renewal at two thirds of its life and the warning at 80% ({@link CertificateRenewal}).
     * On the endpoint's event loop, cancelled at close: {@code CompletableFuture.delayedExecutor} (a JVM-wide timer)
     * kept every closed transport, its connections and their buffers reachable until the warning's time, hours away.
     */
    private void watchCertificateLife() {
        QuicEndpoint e;
        synchronized (this) {
            e = closing.get() || certificateRenewal != null ? null : endpoint;
        }
        if (e == null) {
            return;
        }
        var renewal = new CertificateRenewal(rank, slot, renewer, e::scheduleOnce);
        certificateRenewal = renewal;
        renewal.start();
        if (closing.get()) {
            renewal.stop();
        }
    }

    /**
     * Connects to workers admitted into the running cluster: adds their links and table entries, dials them (they
     * have higher ranks than every member) and waits until each link is ready, then sets up their bulk lanes.
     *
     * @throws ClusterFormationException naming the first newcomer that failed, or those missing at the deadline
     * @throws IllegalArgumentException if a descriptor is malformed or names a rank or member already known
     */
    @Override
    public void admit(List<Newcomer> newcomers, Deadline deadline) {
        assertNotEventLoop();
        var infos = new ArrayList<PeerInfo>(newcomers.size());
        for (Newcomer n : newcomers) {
            infos.add(PeerDescriptor.decode(n));
        }
        PeerLink[] added;
        PeerTable t;
        synchronized (this) {
            PeerTable table = links.table();
            if (closing.get() || table == null) {
                throw new CommunicatorClosedException(context(-1), "failed: cannot admit workers: the transport is "
                        + (closing.get() ? "closed" : "not connected"));
            }
            int size = worldSize;
            for (PeerInfo p : infos) {
                size = Math.max(size, p.rank() + 1);
            }
            t = table.with(infos, size, rank, credentials.memberId());
            added = links.grow(infos, size); // the links before the table: see PeerLinks
            worldSize = size;
            links.publish(t);
        }
        List<PeerLink> dialled = links.dialHigher(endpoint, added, t, deadline);
        Formation.await(this, added, deadline);
        endpoint.connectBulk(dialled, t, deadline);
        LOG.info("grow: rank {}: connected to world ranks {} admitted into the running cluster", rank,
                infos.stream().map(PeerInfo::rank).toList());
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int worldSize() {
        return worldSize;
    }

    /** A random number identifying this start of the transport; sent in every Hello. */
    public long incarnation() {
        return incarnation;
    }

    @Override
    public void send(int peer, Lane lane, Message message, Deadline deadline, ErrorContext context) {
        PeerLink[] all = links.all();
        Objects.checkIndex(peer, all.length);
        if (closing.get()) {
            throw new CommunicatorClosedException(context, "failed: " + closedWhy);
        }
        if (peer == rank) {
            loopback.send(message, deadline, context);
        } else if (all[peer] == null) {
            throw new io.nexar.PeerFailedException(context, "failed: world rank " + peer + " is not a member of the"
                    + " cluster this rank joined");
        } else {
            all[peer].send(lane, message, deadline, context);
        }
    }

    /**
     * Excludes {@code peer} for good: marks it down (reported to the handler once), closes its connection and bulk
     * lane, and refuses any later connection from it (a link that went down never attaches a connection again);
     * its member id is revoked ({@link PeerVerifier#revoke}), so its certificate fails every later handshake with
     * this process, on QUIC and on the bulk lanes.
     */
    @Override
    public void exclude(int peer, String why) {
        PeerLink[] all = links.all();
        Objects.checkIndex(peer, all.length);
        PeerTable t = links.table();
        PeerInfo info = t == null || peer >= t.size() ? null : t.get(peer);
        if (info != null && peer != rank) {
            verifier.revoke(info.memberId(), "rank " + peer + " " + why);
        }
        PeerLink l = all[peer];
        if (l == null) {
            return;
        }
        l.down(why, null, !closing.get());
        Connection c = l.connection();
        if (c != null) {
            c.onLoop(() -> c.closeWith(Texts.DECLARED_FAILED, "rank " + rank + ": rank " + peer + " " + why, why));
        }
    }

    /** Closes normally: peers see this rank leave once they have read everything it sent. Idempotent. */
    @Override
    public void close() {
        shutDown(GoodbyeReason.CLOSE, "it closed its communicator");
    }

    /**
     * Closes because this rank failed: peers see it fail (not leave) once they have read what it sent, which on a
     * healthy link takes milliseconds. Idempotent (the first close or fail wins).
     */
    public void fail(Throwable cause) {
        shutDown(GoodbyeReason.FAILURE, String.valueOf(cause));
    }

    /**
     * Closes because this process gave up after another rank's failure ({@code why}, for example "world rank 2 sent
     * nothing for 3.1s ... (recovery policy abort)"): peers see this rank fail, and the text names the rank that
     * caused it, so their errors point at the real culprit. Idempotent (the first close or fail wins).
     */
    public void failAfter(String why) {
        shutDown(GoodbyeReason.FAILURE, "gave up: " + why);
    }

    private void shutDown(GoodbyeReason reason, String detail) {
        assertNotEventLoop();
        if (!closing.compareAndSet(false, true)) {
            closed.join();
            return;
        }
        closedWhy = reason == GoodbyeReason.CLOSE ? "the transport was closed" : "this rank failed: " + detail;
        var renewal = certificateRenewal;
        if (renewal != null) {
            renewal.stop();
        }
        // Peers get most of close.timeout to read what we sent; stopping the event loops gets the rest.
        Duration total = config.closeTimeout();
        Duration forLoops = total.dividedBy(4).compareTo(Duration.ofSeconds(1)) < 0 ? total.dividedBy(4)
                : Duration.ofSeconds(1);
        QuicEndpoint e;
        synchronized (this) {
            e = endpoint;
        }
        if (e == null && listeners != null) {
            listeners.close(); // never taken over: release the ports and their event loops
        }
        try {
            links.tableKnown(null);
            links.downAll("is unreachable (this rank closed its transport)");
            if (e != null) {
                e.leaveAll(reason, detail, Deadline.after(total.minus(forLoops)));
            }
        } finally {
            try {
                if (e != null && !e.shutdown(forLoops)) {
                    LOG.warn("rank {}: QUIC event loops did not stop within {}", rank, Units.formatRounded(total));
                }
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            } finally {
                closed.complete(null);
            }
        }
    }

    /**
     * Seam for fault tests (QuicFaults in this module's tests): while set, connections send no heartbeats (data still
     * flows), as a rank whose process hangs.
     */
    void heartbeatsPaused(boolean paused) {
        heartbeatsPaused = paused;
    }

    boolean heartbeatsPaused() {
        return heartbeatsPaused;
    }

    /** This transport's QUIC endpoint; null before {@link #bind()} and after close. */
    QuicEndpoint endpoint() {
        return endpoint;
    }

    // ------------------------------------------------------------------ for Connection and Formation

    void connectionClosed(Connection c) {
        QuicEndpoint e = endpoint;
        if (e != null) {
            e.closed(c);
        }
    }

    /** Runs {@code action} on {@code loop} once the peer table is known (with null if the transport closed first). */
    void whenTableKnown(EventLoop loop, Consumer<PeerTable> action) {
        links.whenTableKnown(loop, action);
    }

    void recordRefusal(String why) {
        links.recordRefusal(why);
        LOG.warn("rank {}: {}", rank, why);
    }

    List<String> refusals() {
        return links.refusals();
    }

    /** The link of {@code peer}, or null for this rank, an absent rank or one out of range. */
    PeerLink link(int peer) {
        return links.link(peer);
    }

    PeerTable table() {
        return links.table();
    }

    /** The links; as a {@link Progress}, waiting callers read their own lanes' TCP connections through it. */
    PeerLinks links() {
        return links;
    }

    PeerVerifier verifier() {
        return verifier;
    }

    QuicTuning tuning() {
        return tuning;
    }

    /** This transport's settings. */
    NexarConfig config() {
        return config;
    }

    InboundHandler handler() {
        return handler;
    }

    long maxFrameBytes() {
        return config.maxFrameBytes();
    }

    boolean isClosing() {
        return closing.get();
    }

    Message.Hello hello() {
        return new Message.Hello(WireFormat.VERSION, rank, worldSize, incarnation);
    }

    ErrorContext context(int peer) {
        return new ErrorContext(Operation.FORMATION, rank, worldSize, -1, -1, -1, peer);
    }

    private void assertNotEventLoop() {
        QuicEndpoint e = endpoint;
        if (e != null && e.inEventLoop()) {
            throw new IllegalStateException("blocking transport call on its own event loop");
        }
    }
}
