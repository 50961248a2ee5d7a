package io.nexar.transport.quic;

import io.netty.channel.EventLoop;
import io.nexar.ClusterFormationException;
import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.InboundRouter;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Progress;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.BulkConnection;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import io.nexar.transport.quic.security.PeerVerifier;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
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
 *
 * <p>This class holds the state and the send path; {@link QuicLifecycle} binds, connects, admits newcomers, plans the
 * certificate's renewal and shuts down, and {@link QuicPeerOps} flushes, excludes and offers links to one peer, on
 * this transport's fields. The membership part of its API (admitting workers, linking running members, renewing the
 * certificate) is declared in {@link QuicMembership}.
 */
public final class QuicTransport extends QuicMembership {
    private static final Logger LOG = LoggerFactory.getLogger(QuicTransport.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    // The fields below are package-private for QuicLifecycle, which binds, connects, grows and shuts down this
    // transport (under its monitor where noted there).
    final int rank;
    volatile int worldSize;
    final MemberCredentials credentials;
    final NexarConfig config;
    final InetSocketAddress bindAddress;
    /** Listeners bound before enrolment, taken over by {@link #bind()}; null when bind() binds bindAddress itself. */
    final Listeners listeners;
    private final InboundHandler handler;
    final QuicTuning tuning;
    final BulkLaneOptions bulkOptions;
    private final PeerVerifier verifier;
    private final long incarnation = RANDOM.nextLong();
    /** The links, the peer table and the refused attempts; replaced whole under this transport's monitor. */
    final PeerLinks links;
    private final Loopback loopback;
    final AtomicBoolean closing = new AtomicBoolean();
    /** Times formation found missing peers slow but alive and waited on (for tests and diagnostics). */
    final java.util.concurrent.atomic.AtomicInteger slowPeerWaits = new java.util.concurrent.atomic.AtomicInteger();
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    volatile String closedWhy;
    private volatile boolean heartbeatsPaused;
    volatile QuicEndpoint endpoint;
    /** This member's credentials as renewed ({@link CertificateRenewal}); every handshake reads them. */
    final CredentialSlot slot;
    /** The seed to renew the certificate from, or null; set before connect. */
    volatile CertificateRenewal.Renewer renewer;
    /** The certificate's renewal and warning, planned at connect; stopped at close. */
    volatile CertificateRenewal certificateRenewal;
    /** Set by the first connect; under this transport's monitor. */
    boolean connectCalled;

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
            router.servedBy(this); // and name this rank and world in their protocol errors
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
        return QuicLifecycle.bind(this);
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
            QuicLifecycle.connect(this, peers, deadline, false);
        } else { // a sparse topology: links to the neighbours only, the rest through relays (RelayTransport)
            QuicLifecycle.connect(this, peers.stream().filter(p -> p.rank() == rank
                    || graph.adjacent(rank, p.rank())).toList(), deadline, true);
        }
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
    public void send(int peer, Lane lane, Message message, Deadline deadline, ContextSource context) {
        PeerLink[] all = links.all();
        Objects.checkIndex(peer, all.length);
        if (closing.get()) {
            throw new CommunicatorClosedException(context.errorContext(), "failed: " + closedWhy);
        }
        if (peer == rank) {
            loopback.send(message, deadline, context);
        } else if (all[peer] == null) {
            throw new io.nexar.PeerFailedException(context.errorContext(), "failed: world rank " + peer + " is not a member of the"
                    + " cluster this rank joined");
        } else {
            all[peer].send(lane, message, deadline, context);
        }
    }

    /**
     * Waits until the frames sent to {@code peer} on its QUIC lanes so far were handed to quiche and the connection
     * was flushed to its UDP socket: a task on the connection's event loop, queued after their writes, flushes it.
     * Returns at once if the peer is down, has no connection, or this rank is closing (or on the event loop itself).
     *
     * @param peer a world rank
     * @param deadline how long to wait at most
     */
    @Override
    public void flush(int peer, Deadline deadline) {
        QuicPeerOps.flush(this, peer, deadline);
    }

    /**
     * Excludes {@code peer} for good: marks it down (reported to the handler once), closes its connection and bulk
     * lane, and refuses any later connection from it (a link that went down never attaches a connection again);
     * its member id is revoked ({@link PeerVerifier#revoke}), so its certificate fails every later handshake with
     * this process, on QUIC and on the bulk lanes.
     */
    @Override
    public void exclude(int peer, String why) {
        QuicPeerOps.exclude(this, peer, why);
    }

    /** Closes normally: peers see this rank leave once they have read everything it sent. Idempotent. */
    @Override
    public void close() {
        QuicLifecycle.shutDown(this, GoodbyeReason.CLOSE, "it closed its communicator");
    }

    /**
     * Closes because this rank failed: peers see it fail (not leave) once they have read what it sent, which on a
     * healthy link takes milliseconds. Idempotent (the first close or fail wins).
     */
    public void fail(Throwable cause) {
        QuicLifecycle.shutDown(this, GoodbyeReason.FAILURE, String.valueOf(cause));
    }

    /**
     * Closes because this process gave up after another rank's failure ({@code why}, for example "world rank 2 sent
     * nothing for 3.1s ... (recovery policy abort)"): peers see this rank fail, and the text names the rank that
     * caused it, so their errors point at the real culprit. Idempotent (the first close or fail wins).
     */
    public void failAfter(String why) {
        QuicLifecycle.shutDown(this, GoodbyeReason.FAILURE, "gave up: " + why);
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

    void assertNotEventLoop() {
        QuicEndpoint e = endpoint;
        if (e != null && e.inEventLoop()) {
            throw new IllegalStateException("blocking transport call on its own event loop");
        }
    }
}
