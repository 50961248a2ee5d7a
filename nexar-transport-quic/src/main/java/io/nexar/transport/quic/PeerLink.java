package io.nexar.transport.quic;

import io.nexar.ErrorContext;
import io.nexar.PeerFailedException;
import io.nexar.internal.jfr.ConnectionEvent;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.BulkConnection;
import io.nexar.transport.quic.bulk.BulkPeer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * Everything this rank knows about one peer rank for the transport's lifetime: the one {@link Connection} to it,
 * whether that connection is ready (Hello received on every lane), and, once the peer is gone, why.
 *
 * <p>Threading: the connection is attached on its event loop; {@link #send} runs on user threads; {@link #down} may
 * run anywhere and reports to the {@link InboundHandler} exactly once. A peer that went down stays down: nexar has
 * no reconnection (a restarted process is a new member).
 */
final class PeerLink implements BulkPeer {
    /** The peer's rank. */
    final int peer;
    private final InboundHandler handler;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    /** Completes when the peer goes down (see {@link #down}), ready or not. */
    private final CompletableFuture<Void> lost = new CompletableFuture<>();
    private final AtomicReference<String> down = new AtomicReference<>();
    private final AtomicBoolean reported = new AtomicBoolean();
    private volatile Connection connection;
    private volatile long incarnation;
    private final long bulkThreshold;
    /** The TCP connection of each lane that has one (P2P, COLLECTIVE), by lane ordinal, or null. */
    private final AtomicReferenceArray<BulkConnection> bulk = new AtomicReferenceArray<>(Lane.values().length);
    /** When anything (a frame on any lane, the bulk lane included) last arrived from the peer; System.nanoTime(). */
    private volatile long lastReceivedNanos = System.nanoTime();

    PeerLink(int peer, InboundHandler handler) {
        this(peer, handler, Long.MAX_VALUE);
    }

    /** @param bulkThreshold messages of at least this many bytes use the bulk lane, once there is one */
    PeerLink(int peer, InboundHandler handler, long bulkThreshold) {
        this.peer = peer;
        this.handler = handler;
        this.bulkThreshold = bulkThreshold;
    }

    @Override
    public int peer() {
        return peer;
    }

    /** Completes when the connection is ready; fails with a {@link FormationFailure} if it cannot be formed. */
    @Override
    public CompletableFuture<Void> ready() {
        return ready;
    }

    /** The attached connection, or null. */
    Connection connection() {
        return connection;
    }

    /**
     * Attaches {@code c} as this peer's connection (event loop).
     *
     * @return false if another connection is attached already (a duplicate) or the peer is down
     */
    synchronized boolean attach(Connection c) {
        if (connection != null || down.get() != null) {
            return false;
        }
        connection = c;
        return true;
    }

    /** The connection said Hello on every lane; {@code incarnation} is the peer's (its bulk lane must match). */
    void markReady(long peerIncarnation) {
        incarnation = peerIncarnation;
        lastReceivedNanos = System.nanoTime();
        ready.complete(null);
        connectionEvent("quic (control, heartbeats)", "established", "incarnation " + peerIncarnation);
    }

    /** Records a JFR connection event for this peer if a recording wants it (docs/failure-model.md "JFR events"). */
    private void connectionEvent(String lane, String state, String detail) {
        var event = new ConnectionEvent();
        if (event.shouldCommit()) {
            event.peer = peer;
            event.lane = lane;
            event.state = state;
            event.detail = detail;
            event.commit();
        }
    }

    /** A frame arrived from the peer (any lane, any thread): it is alive now. */
    @Override
    public void noteReceived() {
        lastReceivedNanos = System.nanoTime();
    }

    /** Nanoseconds since anything arrived from the peer. */
    long silentNanos(long now) {
        return now - lastReceivedNanos;
    }

    /** The peer's incarnation, from its QUIC Hello (after ready). */
    @Override
    public long incarnation() {
        return incarnation;
    }

    /** True once the QUIC connection is ready and the peer is up. */
    @Override
    public boolean isReady() {
        return ready.isDone() && !ready.isCompletedExceptionally() && !isDown();
    }

    /**
     * Attaches the verified TCP connection of {@code connection.lane()} (its reader thread); false if that lane has
     * one already or the peer is down.
     */
    @Override
    public synchronized boolean attachBulk(BulkConnection connection) {
        int i = connection.lane().ordinal();
        if (bulk.get(i) != null || !isReady()) {
            return false;
        }
        bulk.set(i, connection);
        connectionEvent("tcp " + connection.lane().name().toLowerCase(java.util.Locale.ROOT), "established", "");
        return true;
    }

    /** The point-to-point lane's TCP connection, or null. Any thread. */
    BulkConnection bulk() {
        return bulk(Lane.P2P);
    }

    /** {@code lane}'s TCP connection, or null. Any thread. */
    @Override
    public BulkConnection bulk(Lane lane) {
        return bulk.get(lane.ordinal());
    }

    /** Every attached TCP connection. Any thread. */
    List<BulkConnection> bulks() {
        var all = new ArrayList<BulkConnection>(2);
        for (int i = 0; i < bulk.length(); i++) {
            BulkConnection b = bulk.get(i);
            if (b != null) {
                all.add(b);
            }
        }
        return all;
    }

    /** True if every TCP connection was read to its end (a leaving peer is reported only then). */
    boolean bulkDrained() {
        return bulks().stream().allMatch(BulkConnection::inputEnded);
    }

    /** Completes once the peer is down ({@link #downReason()} says why). */
    CompletableFuture<Void> lost() {
        return lost;
    }

    /** Formation of this link failed; {@code why} completes "rank N ...". */
    void failFormation(String why) {
        ready.completeExceptionally(new FormationFailure(peer, why));
    }

    /** True once the peer is down. */
    @Override
    public boolean isDown() {
        return down.get() != null;
    }

    /** Why the peer is down, or null. */
    String downReason() {
        return down.get();
    }

    /**
     * Marks the peer down. The first reason wins: it fails formation if that was still under way and wakes waiting
     * senders, whose sends then fail. If {@code report}, the handler is told (see {@link #report}).
     *
     * @param why completes "rank N ...", for example {@code left (it closed its communicator)}
     * @param cause the underlying error, or null
     * @param report false when the handler must not hear of it yet (a peer that said goodbye is reported once its
     *        lanes are read to their end) or at all (this transport is closing)
     */
    @Override
    public void down(String why, Throwable cause, boolean report) {
        if (down.compareAndSet(null, why)) {
            connectionEvent("all", "lost", why);
            ready.completeExceptionally(new FormationFailure(peer, why));
            lost.complete(null);
            Connection c = connection;
            if (c != null) {
                c.wakeSenders();
            }
            for (BulkConnection b : bulks()) {
                b.wakeSenders();
            }
        }
        if (report) {
            report(cause);
        }
    }

    @Override
    public void quicFailed(String why, Throwable cause) {
        onQuicConnection(c -> c.fail(why, cause));
    }

    @Override
    public void bulkInputEnded() {
        onQuicConnection(Connection::checkDrained);
    }

    /** Runs {@code task} on the event loop of the peer's QUIC connection, if there is one and its loop still runs. */
    private void onQuicConnection(Consumer<Connection> task) {
        Connection c = connection;
        if (c != null) {
            c.onLoop(() -> task.accept(c));
        }
    }

    /** Tells the handler, once, that the peer is down, with the first reason given to {@link #down}. */
    void report(Throwable cause) {
        String why = down.get();
        if (why != null && reported.compareAndSet(false, true)) {
            handler.onPeerDown(peer, why, cause);
        }
    }

    /**
     * Sends one message on {@code lane}.
     *
     * @throws PeerFailedException if the peer is down
     * @throws IllegalStateException if the link was never formed
     */
    void send(Lane lane, Message message, Deadline deadline, ContextSource context) {
        checkUp(context);
        Connection c = connection;
        if (c == null || !ready.isDone()) {
            throw new IllegalStateException("rank " + peer + " is not connected yet: call connect() first");
        }
        BulkConnection b = lane == Lane.P2P || lane == Lane.COLLECTIVE ? bulk.get(lane.ordinal()) : null;
        if (b != null && !b.inputEnded() && totalBytes(message) >= bulkThreshold) {
            b.send(message, deadline, context);
        } else {
            c.lane(lane).send(message, deadline, context);
        }
    }

    /** The size of the whole message a chunk belongs to (every chunk of a message takes the same path), or -1. */
    private static long totalBytes(Message m) {
        return switch (m) {
            case Message.Data d -> d.totalBytes();
            case Message.Collective c -> c.totalBytes();
            default -> -1;
        };
    }

    /** Throws {@link PeerFailedException} if the peer is down. */
    @Override
    public void checkUp(ContextSource context) {
        String why = down.get();
        if (why != null) {
            throw new PeerFailedException(context.withPeer(peer), "cannot complete: rank " + peer + " " + why);
        }
    }

    /** Why a link could not be formed. Carries no stack: the formation error that reports it has one. */
    static final class FormationFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int peer;

        FormationFailure(int peer, String why) {
            super("rank " + peer + " " + why, null, false, false);
            this.peer = peer;
        }
    }
}
