package io.nexar.transport.quic;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicClosedChannelException;
import io.netty.handler.codec.quic.SegmentedDatagramPacketAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.Addresses;
import io.nexar.transport.quic.bulk.BulkEndpoint;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network side of one {@link QuicTransport}: its event loops, its two UDP sockets (one listening, one shared by
 * every connection it dials), its live connections, the heartbeat timer, and the orderly shutdown of all of them.
 *
 * <p>Threading: {@link #dial} and the heartbeat timer hand work to event loops; {@link #leaveAll} and {@link #shutdown}
 * block their caller (never an event loop) for at most their deadline.
 */
final class QuicEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(QuicEndpoint.class);
    private final QuicTransport transport;
    private final QuicTuning tuning;
    private final NettyIo io;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong heartbeatSequence = new AtomicLong();
    private Channel server;
    private Channel client;
    private BulkEndpoint bulk;
    private volatile ScheduledFuture<?> heartbeats;
    private volatile long resumedNanos;

    private QuicEndpoint(QuicTransport transport, QuicTuning tuning, NettyIo io) {
        this.transport = transport;
        this.tuning = tuning;
        this.io = io;
    }

    /**
     * Starts the event loops and binds the listening socket to {@code address} and the dialling socket to an
     * ephemeral port of the same host; everything is shut down again if that fails.
     */
    static QuicEndpoint bind(QuicTransport transport, CredentialSlot credentials, InetSocketAddress address,
                             QuicTuning tuning, BulkLaneOptions bulk, Duration closeTimeout) throws Exception {
        var io = new NettyIo("nexar-quic-r" + transport.rank(), tuning, transport.rank(), transport.worldSize());
        Listeners listeners;
        try {
            listeners = Listeners.bindExact(io, address, bulk.mode() == BulkLaneOptions.Mode.OFF ? -1 : bulk.port());
        } catch (Exception failure) {
            io.shutdown(closeTimeout);
            throw failure;
        }
        return bind(transport, credentials, listeners, tuning, bulk, closeTimeout);
    }

    /**
     * Takes over {@code listeners} (bound before enrolment, see {@link Listeners}): names their event loops after the
     * rank, puts the QUIC server codec on the listening socket, binds the dialling socket to an ephemeral port of the
     * same host and starts the TCP lanes' listener; everything is shut down if that fails.
     */
    static QuicEndpoint bind(QuicTransport transport, CredentialSlot credentials, Listeners listeners,
                             QuicTuning tuning, BulkLaneOptions bulk, Duration closeTimeout) throws Exception {
        var e = new QuicEndpoint(transport, tuning, listeners.io());
        e.io.identify("nexar-quic-r" + transport.rank(), transport.rank(), transport.worldSize());
        InetSocketAddress address = listeners.udpAddress();
        java.nio.channels.ServerSocketChannel tcp = null;
        try {
            e.server = listeners.installQuic(QuicCodecs.server(credentials, transport.verifier(), tuning,
                    e.io.segments(), () -> e.track(new AcceptedConnection(transport))));
            tcp = listeners.takeTcp();
            if (bulk.mode() != BulkLaneOptions.Mode.OFF && tcp == null) {
                throw new IllegalStateException("a bulk lane needs a TCP listener");
            }
            if (tcp != null) {
                e.bulk = BulkEndpoint.bind(new QuicBulkHost(transport, e.io), credentials, bulk,
                        transport.config().tlsEngine().key(), tcp);
            }
            e.client = e.io.bindUdp(new InetSocketAddress(address.getAddress(), 0),
                    QuicCodecs.client(credentials, transport.verifier(), tuning));
            return e;
        } catch (Exception failure) {
            listeners.closeSockets();
            if (tcp != null && e.bulk == null) {
                tcp.close();
            }
            e.shutdown(closeTimeout);
            throw failure;
        }
    }

    /** The listening address. */
    InetSocketAddress localAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    /** The TCP bulk lane's listening address, or null without a bulk lane. */
    InetSocketAddress bulkAddress() {
        return bulk == null ? null : bulk.localAddress();
    }

    /** Sets up the bulk lanes this rank dials (see {@link BulkEndpoint#connectAll}); nothing without a bulk lane. */
    void connectBulk(List<PeerLink> targets, PeerTable table, Deadline deadline) {
        if (bulk != null) {
            bulk.connectAll(targets, p -> table.get(p).bulkAddress(), deadline);
        }
    }

    /** How the sockets are driven, for logs. */
    String describe() {
        return (io.epoll() ? "epoll" : "nio") + ", UDP payload " + tuning.maxUdpPayloadBytes() + " bytes, GSO "
                + (io.segments() != SegmentedDatagramPacketAllocator.NONE) + ", bulk lane "
                + (bulk == null ? "off" : "TCP " + Addresses.format(bulk.localAddress()));
    }

    private Connection track(Connection c) {
        connections.add(c);
        return c;
    }

    /** A connection closed: forget it. */
    void closed(Connection c) {
        connections.remove(c);
    }

    /**
     * Dials {@code link}'s peer at {@code address}; the outcome reaches the link (ready, or a formation failure
     * naming the address and why).
     */
    void dial(PeerLink link, InetSocketAddress address, Deadline deadline) {
        var c = new DialedConnection(transport, link);
        long millis = Math.clamp(TimeUnit.NANOSECONDS.toMillis(deadline.remainingNanos()), 1, Integer.MAX_VALUE);
        var b = QuicChannel.newBootstrap(client).handler(c).attr(Connection.KEY, c)
                .streamHandler(QuicCodecs.rejectStreams())
                .remoteAddress(address).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) millis);
        if (io.segments() != SegmentedDatagramPacketAllocator.NONE) {
            b.option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR, io.segments());
        }
        b.connect().addListener(f -> {
            if (f.isSuccess()) {
                track(c);
                c.onDialed();
                return;
            }
            Throwable cause = f.cause();
            String why = cause instanceof QuicClosedChannelException q && q.event() != null ? c.describe(q.event())
                    : cause instanceof ConnectTimeoutException ? "did not answer within " + millis + "ms"
                    : "could not be reached: " + cause;
            link.failFormation("at " + Addresses.format(address) + " " + why);
        });
    }

    /**
     * Starts the failure detector: every tick (a tenth of the timeout, at most the interval) each connection sends its
     * heartbeat when due and checks how long its peer has been silent ({@link Connection#heartbeat}).
     *
     * <p>A tick that comes more than half the timeout (at least three ticks) after the previous one means that this
     * process was itself paused or starved of CPU (a machine loaded far beyond its cores, a stop, a long safepoint):
     * its peers' messages of that time may still sit unread in its sockets, and its peers may have been paused alike.
     * Their silence then counts only from the resumption ({@link #resumedNanos}), so a pause of every process does not
     * make each accuse the others; a peer that stays silent is declared failed one timeout later.
     */
    void startHeartbeats(Duration interval, Duration timeout) {
        long intervalNanos = interval.toNanos();
        long timeoutNanos = timeout.toNanos();
        long tick = Math.max(TimeUnit.MILLISECONDS.toNanos(5), Math.min(intervalNanos, timeoutNanos / 10));
        long pauseNanos = Math.max(3 * tick, timeoutNanos / 2);
        long[] lastTick = {System.nanoTime()}; // the timer's thread only
        resumedNanos = lastTick[0];
        heartbeats = io.group().next().scheduleAtFixedRate(() -> {
            long now = System.nanoTime();
            long gap = now - lastTick[0];
            lastTick[0] = now;
            if (gap > pauseNanos) {
                resumedNanos = now;
                LOG.warn("rank {}: this process ran no heartbeat tick for {} (one is due every {}): it was paused or"
                        + " starved of CPU itself, so its peers' silence counts from now (heartbeat.timeout {})",
                        transport.rank(), Texts.millis(gap), Texts.millis(tick), Texts.millis(timeoutNanos));
            }
            long resumed = resumedNanos;
            for (Connection c : connections) {
                c.channel().eventLoop().execute(() -> c.heartbeat(intervalNanos, timeoutNanos, resumed,
                        heartbeatSequence.getAndIncrement()));
            }
        }, 0, tick, TimeUnit.NANOSECONDS);
    }

    /**
     * When the heartbeat timer last found that this process had been paused (or when it started): peers' silence
     * counts from no earlier than this ({@link System#nanoTime}).
     */
    long resumedNanos() {
        return resumedNanos;
    }

    /**
     * Says goodbye on every connection and waits, at most until {@code deadline}, for them to close: after a normal
     * close each peer closes the connection once it has read everything; what is still open then is closed.
     */
    void leaveAll(GoodbyeReason reason, String detail, Deadline deadline) {
        ScheduledFuture<?> k = heartbeats;
        if (k != null) {
            k.cancel(false);
        }
        List<ChannelFuture> open = new ArrayList<>();
        for (Connection c : connections) {
            c.channel().eventLoop().execute(() -> c.leave(reason, detail));
            open.add(c.channel().closeFuture());
        }
        for (ChannelFuture f : open) {
            f.awaitUninterruptibly(TimeUnit.NANOSECONDS.toMillis(deadline.remainingNanos()));
        }
        for (Connection c : connections) {
            c.channel().eventLoop().execute(() -> c.closeWith(reason.code(), detail, null));
            c.channel().closeFuture().awaitUninterruptibly(TimeUnit.NANOSECONDS.toMillis(deadline.remainingNanos()));
        }
    }

    /** Closes both sockets and stops the event loops, waiting at most {@code timeout}; false if threads remain. */
    boolean shutdown(Duration timeout) throws InterruptedException {
        Deadline deadline = Deadline.after(timeout);
        if (bulk != null) {
            bulk.shutdown(timeout.dividedBy(2));
        }
        for (Channel ch : new Channel[] {server, client}) {
            if (ch != null) {
                ch.close().awaitUninterruptibly(TimeUnit.NANOSECONDS.toMillis(deadline.remainingNanos()));
            }
        }
        return io.shutdown(Duration.ofNanos(Math.max(deadline.remainingNanos(), TimeUnit.MILLISECONDS.toNanos(1))));
    }

    /**
     * Runs {@code action} once after {@code delay} on one of this endpoint's event loops; the task ends with the
     * loops (a JVM-wide timer would keep the transport reachable until it fires: hours for a certificate warning).
     */
    ScheduledFuture<?> scheduleOnce(Runnable action, Duration delay) {
        return io.group().next().schedule(action, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The event loops that run this endpoint's connections. */
    Iterable<EventExecutor> eventLoops() {
        return io.group();
    }

    /** True on one of this endpoint's event-loop threads. */
    boolean inEventLoop() {
        for (EventExecutor e : io.group()) {
            if (e.inEventLoop()) {
                return true;
            }
        }
        return false;
    }
}
