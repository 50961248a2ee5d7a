package io.nexar.transport.quic;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.transport.DeclaredFailed;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.transport.Lane;
import io.nexar.transport.quic.bulk.Addresses;
import io.nexar.transport.quic.bulk.BulkConnection;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * One QUIC connection to one peer, and the handler of its {@link QuicChannel}. All methods run on the channel's event
 * loop unless their Javadoc says otherwise.
 *
 * <pre>
 *  dialer (lower rank)                                    acceptor (higher rank)
 *  connect, TLS 1.3 both certificates, ALPN nexar/1 ───▶  trust manager: chain to the cluster CA
 *  check: peer names the member of the table entry        check: member is a lower rank, not yet connected
 *  open stream 4*i for lane i, write HELLO on each  ───▶  lane = stream id / 4; HELLO must name that rank
 *  HELLO on all four lanes: ready                   ◀───  answer HELLO on each lane; four HELLOs: ready
 * </pre>
 *
 * <p>{@link DialedConnection} and {@link AcceptedConnection} add each role's identity checks. A refused identity
 * closes the connection with application error {@link Texts#REFUSED} and a reason the other side
 * reports. Goodbye (a normal close, or a rank that failed) is followed by a FIN on every lane, and the peer is
 * reported down only when every lane (and its bulk lane) has been read to its end, so messages sent before the
 * Goodbye are delivered first; sends to it fail at once. A protocol error reports the peer at once. The reason also
 * travels in the CONNECTION_CLOSE, for a peer that never reads the Goodbye. The Goodbyes of both sides are followed
 * by {@link Goodbyes}.
 */
abstract class Connection extends ChannelInboundHandlerAdapter implements LaneOwner {
    static final AttributeKey<Connection> KEY = AttributeKey.valueOf("nexar.connection");
    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);

    static final int LANES = Lane.values().length;
    final QuicTransport transport;
    final AtomicReferenceArray<LaneStream> lanes = new AtomicReferenceArray<>(LANES);
    QuicChannel channel;
    private String remote;
    volatile PeerLink link;
    private volatile boolean done;
    private long lastHeartbeatNanos;
    private int hellos;
    private long incarnation;
    private boolean ready;
    /** The Goodbyes of both sides, and whether the peer is leaving. */
    private final Goodbyes goodbyes = new Goodbyes(this);
    private QuicConnectionCloseEvent closeEvent;
    private String localCloseWhy;
    boolean closedByPeer;
    Throwable handshakeFailure;

    Connection(QuicTransport transport) {
        this.transport = transport;
    }

    /** The peer's link; null before the peer is verified. Any thread. */
    @Override
    public PeerLink link() {
        return link;
    }

    /** True once the QUIC connection is closed. Any thread. */
    @Override
    public boolean isDone() {
        return done;
    }

    /** The lane's stream (after ready). Any thread. */
    LaneStream lane(Lane lane) {
        return lanes.get(lane.ordinal());
    }

    /** The QUIC channel (after the handler was added). */
    QuicChannel channel() {
        return channel;
    }

    /** Runs {@code task} on this connection's event loop, unless the loop is stopping (see {@link #execute}). */
    void onLoop(Runnable task) {
        execute(channel.eventLoop(), transport.rank(), task);
    }

    /**
     * Runs {@code task} on {@code loop}; if the loop is stopping (the transport is closing) the task is dropped, which
     * is logged at debug level for rank {@code rank}.
     */
    static void execute(EventLoop loop, int rank, Runnable task) {
        try {
            loop.execute(task);
        } catch (RejectedExecutionException stopping) {
            LOG.debug("rank {}: event loop is stopping", rank);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = (QuicChannel) ctx.channel();
        channel.attr(KEY).set(this);
        remote();
        // Not channelInactive: a connection whose handshake failed never became active, but it still closes.
        channel.closeFuture().addListener(f -> onClosed());
    }

    // ------------------------------------------------------------------ establishing

    /** The member the dialled peer-table entry names; null for an accepted connection. Any thread. */
    abstract String expectedMember();

    /** The trust manager refused the peer's certificate during the handshake. */
    abstract void refusedInHandshake(String reason);

    /** The connection closed before its peer was identified and attached; {@code why} completes "rank N ...". */
    abstract void closedUnidentified(String why);

    /** Whether this side answers each lane's Hello (the acceptor does). */
    abstract boolean answersHello();

    /** The peer's address as text. */
    String remote() {
        if (remote == null && channel != null && channel.remoteSocketAddress() != null) {
            remote = Addresses.format(channel.remoteSocketAddress());
        }
        return remote;
    }

    LaneStream addLane(QuicStreamChannel s, Lane lane) {
        var ls = new LaneStream(this, lane, s, transport.tuning().laneHighWaterBytes(),
                transport.config().heartbeatTimeout().toNanos());
        s.pipeline().addLast(ls);
        lanes.set(lane.ordinal(), ls);
        return ls;
    }

    /** The first frame of a lane: it must be the peer's Hello. */
    @Override
    public void onHello(LaneStream ls, Message m) {
        if (!(m instanceof Message.Hello h)) {
            throw protocolError("began lane " + ls.lane() + " with " + m.type() + " instead of HELLO");
        }
        if (h.rank() != link.peer) {
            throw protocolError("says in its HELLO that it is rank " + h.rank());
        }
        // The world size is not compared: it grows when a running cluster admits workers, and identity is already
        // checked (certificate and peer table); the codec checked rank < worldSize.
        if (hellos > 0 && h.incarnation() != incarnation) {
            throw protocolError("changed its incarnation between lanes");
        }
        incarnation = h.incarnation();
        if (answersHello()) {
            ls.writeNow(transport.hello());
        }
        if (++hellos == LANES) {
            ready = true;
            LOG.info("connection up: world rank {} at {} (incarnation {})", link.peer, remote(), incarnation);
            link.markReady(incarnation);
        }
    }

    // ------------------------------------------------------------------ running

    @Override
    public Delivery deliver(Message m) {
        return transport.handler().onMessage(link.peer, m);
    }

    @Override
    public ProtocolException protocolError(String what) {
        return protocolError(transport, link == null ? -1 : link.peer, what);
    }

    /** A protocol error of {@code peer} on {@code transport}, naming it (rank -1 while it is not identified). */
    static ProtocolException protocolError(QuicTransport transport, int peer, String what) {
        return new ProtocolException(new ErrorContext(Operation.DECODE, transport.rank(), transport.worldSize(), -1, -1,
                -1, peer), "failed: rank " + peer + " " + what);
    }

    @Override
    public void onGoodbye(Message.Goodbye g) {
        goodbyes.onGoodbye(g);
    }

    /** A lane was read to its end (FIN, or its stream closed). */
    @Override
    public void laneFinished(LaneStream lane) {
        goodbyes.laneFinished(lane);
    }

    /** Reports a leaving peer once all it sent was read: every lane, and its bulk lane if it has one. */
    void checkDrained() {
        goodbyes.checkDrained();
    }

    /** Reading a lane failed: a protocol violation by the peer, or an error of the inbound handler. */
    @Override
    public void laneFailed(LaneStream lane, RuntimeException e) {
        if (e instanceof ProtocolException raised) {
            ProtocolException pe = MessageCodec.seenBy(raised, transport.rank(), transport.worldSize());
            LOG.warn("rank {}: {}", transport.rank(), pe.getMessage());
            String detail = Texts.truncate(pe.getMessage());
            LaneStream control = lanes.get(0);
            if (control != null && ready) {
                control.writeNow(new Message.Goodbye(GoodbyeReason.PROTOCOL_ERROR, detail));
            }
            down("broke the protocol: " + pe.getMessage(), pe);
            closeWith(GoodbyeReason.PROTOCOL_ERROR.code(), detail, null);
        } else {
            LOG.error("rank {}: delivering from lane {} failed", transport.rank(), lane.name(), e);
            fail("was disconnected after an error on lane " + lane.name() + ": " + e, e);
        }
    }

    /** A write failed; unless the peer is already gone or leaving, the connection is lost. */
    @Override
    public void writeFailed(LaneStream lane, Throwable cause) {
        if (!done && goodbyes.leavingWhy() == null && !transport.isClosing() && link != null && !link.isDown()) {
            fail("was disconnected (writing lane " + lane.name() + " failed: " + cause + ")", cause);
        }
    }

    /** The peer is lost: mark it down and close the connection telling it why. */
    void fail(String why, Throwable cause) {
        down(why, cause);
        closeWith(GoodbyeReason.FAILURE.code(), "rank " + transport.rank() + ": rank "
                + (link == null ? "?" : link.peer) + " " + why, null);
    }

    /**
     * This rank declares the peer failed: marks it down and closes the connection with
     * {@link Texts#DECLARED_FAILED}, so a peer that is still alive learns that it was cut off (and does not blame
     * this rank).
     */
    void declareFailed(String why) {
        down(why, null);
        closeWith(Texts.DECLARED_FAILED, "rank " + transport.rank() + ": rank " + (link == null ? "?" : link.peer)
                + " " + why, why);
    }

    private void down(String why, Throwable cause) {
        PeerLink l = link;
        if (l != null) {
            l.down(why, cause, !transport.isClosing());
        } else {
            closedUnidentified(why);
        }
    }

    /**
     * One tick of the failure detector for this peer: sends a heartbeat on the control lane every
     * {@code intervalNanos} (whatever else is sent: data can sit in a paused lane, a heartbeat never waits), and
     * declares the peer failed once nothing at all arrived from it for {@code timeoutNanos}, counted from no earlier
     * than {@code resumedNanos} (when this process last resumed from a pause of its own: {@link QuicEndpoint}).
     */
    void heartbeat(long intervalNanos, long timeoutNanos, long resumedNanos, long sequence) {
        PeerLink l = link;
        if (!ready || done || l == null || l.isDown() || transport.isClosing()) {
            return;
        }
        long now = System.nanoTime();
        long silent = Math.min(l.silentNanos(now), now - resumedNanos);
        if (silent > timeoutNanos) {
            declareFailed("sent nothing for " + Texts.millis(silent) + " (heartbeat timeout "
                    + Texts.millis(timeoutNanos) + "): its process is dead, hung or unreachable");
            return;
        }
        if (now - lastHeartbeatNanos >= intervalNanos && !transport.heartbeatsPaused()) {
            lastHeartbeatNanos = now;
            lanes.get(Lane.CONTROL.ordinal()).writeNow(new Message.Heartbeat(sequence, now));
        }
    }

    /** Wakes senders waiting for room on any lane (any thread). */
    void wakeSenders() {
        for (int i = 0; i < LANES; i++) {
            LaneStream ls = lanes.get(i);
            if (ls != null) {
                ls.wakeSenders();
            }
        }
    }

    /**
     * This transport is closing (normally, or because its rank failed): say Goodbye, then end every lane (see
     * {@link Goodbyes#leave}).
     */
    void leave(GoodbyeReason reason, String detail) {
        goodbyes.leave(reason, detail);
    }

    /** True once every lane said Hello. */
    boolean isReady() {
        return ready;
    }

    /** Closes the QUIC connection with an application error {@code code} and a reason the peer will report. */
    void closeWith(int code, String reason, String why) {
        LOG.debug("rank {}: closing the connection with {} (code {}: {})", transport.rank(), remote(), code, reason);
        if (localCloseWhy == null) {
            localCloseWhy = why != null ? why : "was disconnected by this rank";
        }
        if (channel.isOpen()) {
            // Flush the UDP socket once closed: a close from inside a read would otherwise leave the
            // CONNECTION_CLOSE datagram unflushed until the socket's next read.
            var udp = channel.parent();
            channel.close(true, code, Unpooled.copiedBuffer(Texts.truncate(reason), StandardCharsets.UTF_8))
                    .addListener(f -> udp.flush());
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent h && !h.isSuccess()) {
            handshakeFailure = h.cause();
        }
        if (evt instanceof QuicConnectionCloseEvent e) {
            // The peer closed the connection: nothing more can arrive, so skip quiche's draining period (three
            // probe timeouts) and report the peer now.
            closeEvent = e;
            ctx.channel().close();
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("rank {}: QUIC connection error", transport.rank(), cause);
    }

    private void onClosed() {
        done = true;
        String leavingWhy = goodbyes.leavingWhy();
        String why = leavingWhy != null ? leavingWhy : describe(closeEvent);
        closedByPeer = closeEvent != null;
        LOG.atLevel(link != null ? Level.INFO : Level.DEBUG).log("connection down: {} at {} {}",
                link != null ? "world rank " + link.peer : "a peer not yet identified", remote(), why);
        PeerLink l = link;
        if (l != null) {
            for (BulkConnection bulk : l.bulks()) {
                bulk.close();
            }
            l.down(ready ? why : "at " + remote() + " " + why, null, false);
            if (!transport.isClosing()) {
                boolean cutOff = closeEvent != null && closeEvent.isApplicationClose()
                        && closeEvent.error() == Texts.DECLARED_FAILED;
                l.report(cutOff ? new DeclaredFailed(why) : null);
            }
        } else {
            closedUnidentified(closeEvent != null || handshakeFailure == null ? why
                    : "failed its TLS handshake: " + handshakeFailure.getMessage());
        }
        wakeSenders();
        transport.connectionClosed(this);
    }

    /** Completes "rank N ..." for this connection's close, or a dial's failure with {@code e}. */
    String describe(QuicConnectionCloseEvent e) {
        if (e == null && localCloseWhy != null) {
            return localCloseWhy;
        }
        return Texts.describeClose(e, channel != null && channel.isTimedOut(), transport.tuning().idleTimeout());
    }
}
