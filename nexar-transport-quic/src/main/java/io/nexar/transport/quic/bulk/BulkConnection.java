package io.nexar.transport.quic.bulk;

import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP bulk-lane connection with one peer, carrying one lane (P2P or COLLECTIVE; a pair has one connection per
 * lane): its setup ({@link BulkSetup}), its reader ({@link BulkReader}) and its writer ({@link BulkWriter}). The
 * reader and the writer each run on a platform thread of their own ({@code nexar-bulk-r<rank>-p<peer>-<lane>-rx},
 * {@code -tx}) over a socket that is non-blocking after setup ({@link BulkSocket}); senders write their own small
 * frames. This class ties them together; {@link BulkLaneFailure} decides what a failure means.
 *
 * <pre>
 *  dialer (lower rank, its QUIC link ready)          acceptor
 *  TCP connect, TLS 1.3 both certificates      ───▶  chain to the cluster CA
 *  acceptor must be the dialled member               dialer's member must be a lower rank with a ready QUIC link
 *  HELLO (same incarnation as on QUIC)         ───▶  HELLO checked, answered: bulk lane attached
 *  HELLO checked: bulk lane attached           ◀───
 * </pre>
 *
 * <p><b>Setup.</b> Anything that goes wrong before both Hellos, or setup taking longer than its deadline: this pair
 * keeps using QUIC ({@link #setUp} completes either way, formation never fails because of the bulk lane).
 *
 * <p><b>Receiving</b> (see {@link BulkReader}): a caller waiting for a message of this lane reads the socket itself
 * for up to {@code poll.window} ({@link #tryPoll}, through {@link BulkHost#lanes()}), else the reader thread does;
 * length prefixes checked before any allocation, one reused frame buffer, back-pressure by not reading the socket.
 * <b>Sending</b> (any thread, see {@link BulkWriter}):
 * {@link #send} returns once its frame is in output buffers, at most at its deadline. Memory per connection: the frame
 * buffer, two output buffers ({@link BulkOutput#OUT_BYTES} each) and the kernel's socket buffers.
 *
 * <p><b>Failure and end.</b> After setup, a protocol error or a failed read or write loses the peer, like on QUIC: a
 * message may be half-written, and nexar does not resend. {@link #finishOutput} (this rank leaves) sends the frames
 * queued so far, then TLS close_notify and a TCP FIN. The peer's clean end (close_notify, then FIN) counts for its
 * drain, see {@link BulkPeer#bulkInputEnded()}; for TLS an end without close_notify is an error.
 */
public final class BulkConnection {
    private static final Logger LOG = LoggerFactory.getLogger(BulkConnection.class);

    private final BulkHost host;
    private final BulkEndpoint endpoint;
    private final BulkPeer dialTarget;
    private final InetSocketAddress dialAddress;
    private final SocketChannel channel;
    private final BulkSocket socket;
    private final BulkWriter writer;
    private final BulkReader reader;
    private final CompletableFuture<Void> setUp = new CompletableFuture<>();
    private final AtomicInteger liveLoops = new AtomicInteger(1);
    private final BulkLaneFailure failure = new BulkLaneFailure(this);
    private volatile BulkPeer link;
    /** The lane this connection carries: P2P or COLLECTIVE; for an accepted one, known from the dialer's HELLO. */
    private volatile Lane lane;
    private volatile boolean inputEnded;
    private volatile boolean ready;
    private volatile boolean closed;

    /**
     * @param dialTarget the link this rank dials (and {@code dialAddress} its bulk address), or null for an accepted
     *                   connection
     * @param lane the lane a dialled connection carries (P2P or COLLECTIVE); null for an accepted one
     * @param channel the socket: not yet connected if dialled, accepted otherwise; blocking
     * @param socket its byte stream (TLS or plain)
     */
    BulkConnection(BulkHost host, BulkEndpoint endpoint, BulkPeer dialTarget, Lane lane,
                   InetSocketAddress dialAddress, SocketChannel channel, BulkSocket socket) {
        this.host = host;
        this.lane = lane;
        this.endpoint = endpoint;
        this.dialTarget = dialTarget;
        this.dialAddress = dialAddress;
        this.channel = channel;
        this.socket = socket;
        this.writer = new BulkWriter(this, socket);
        this.reader = new BulkReader(this, host, socket, writer);
    }

    /** Completes when the bulk lane is attached, or when this pair stays on QUIC. Never fails. */
    CompletableFuture<Void> setUp() {
        return setUp;
    }

    /** Starts the reader thread, which sets the connection up before {@code setupDeadline} and then reads it. */
    void start(Deadline setupDeadline) {
        long setupNanos = setupDeadline.remainingNanos();
        var setup = new BulkSetup(this, reader, writer, channel, dialAddress, setupDeadline);
        endpoint.startThread(threadName(dialTarget == null ? "accept" : "p" + dialTarget.peer(), "rx"),
                () -> readLoop(setup));
        endpoint.schedule(() -> abandonSetup("did not finish its setup within "
                + TimeUnit.NANOSECONDS.toMillis(setupNanos) + "ms"), setupNanos);
    }

    /**
     * Gives up the setup (its deadline passed, or the endpoint needs room for a newer accepted connection): falls back
     * to QUIC and closes the socket, unless the lane was attached or had fallen back already (then it stays as it is).
     * {@code why} as for {@link #fallBack}. Any thread.
     *
     * @return true if this call closed the connection
     */
    boolean abandonSetup(String why) {
        if (fallBack(why)) {
            closeSocket(); // only if this call fell back: a lane attached meanwhile stays open
            return true;
        }
        return false;
    }

    /** The name of one of this connection's threads ({@code role} rx or tx; the lane goes before it once known). */
    String threadName(String peer, String role) {
        String lanePart = lane == null ? "" : lane.name().toLowerCase(Locale.ROOT) + "-";
        return "nexar-bulk-r" + host.rank() + "-" + peer + "-" + lanePart + role;
    }

    // ------------------------------------------------------------------ what the parts share

    BulkHost host() {
        return host;
    }

    BulkSocket socket() {
        return socket;
    }

    /** The link this rank dials, or null for an accepted connection. */
    BulkPeer dialTarget() {
        return dialTarget;
    }

    /** The peer's link, once the peer is identified (during setup); null before. Any thread. */
    BulkPeer link() {
        return link;
    }

    /** The lane this connection carries; null for an accepted connection before the dialer's HELLO. */
    public Lane lane() {
        return lane;
    }

    /** The transport's poll window ({@code poll.window}): how long a blocked sender reads its lane itself. */
    long pollWindowNanos() {
        return host.lanes().pollNanos();
    }

    /** A sender waiting for this socket reads its lane's connections meanwhile ({@link SenderWrites#writeFrom}). */
    void pollOwnLane() {
        Lane l = lane;
        if (l != null) {
            host.lanes().poll(l);
        }
    }

    /** A sender going to wait for this socket hands its lane back to the reader threads. */
    void handBackOwnLane() {
        Lane l = lane;
        if (l != null) {
            host.lanes().handBack(l);
        }
    }

    /** The dialer's HELLO named the lane of an accepted connection (setup, reader thread). */
    void carries(Lane l) {
        lane = l;
    }

    /** The peer ended its output and it was read to its end: nothing more arrives on this connection. */
    public boolean inputEnded() {
        return inputEnded;
    }

    void markInputEnded() {
        inputEnded = true;
    }

    /** The peer is identified (setup, reader thread). */
    void identified(BulkPeer l) {
        link = l;
    }

    /** True once the bulk lane is attached. Any thread. */
    public boolean isReady() {
        return ready;
    }

    /** True once the connection is closed. Any thread. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Both Hellos are through: attaches this lane to its link, then starts the writer thread (after the attach, so a
     * refused lane leaves no thread behind). Setup, reader thread.
     */
    void attach() {
        synchronized (this) { // excludes the setup timer's fallBack: a lane is either attached or fallen back
            if (setUp.isDone()) {
                throw protocolError("finished its bulk-lane setup after the deadline");
            }
            if (!link.attachBulk(this)) {
                throw protocolError(link.bulk(lane) != null ? "opened a second " + lane + " bulk connection"
                        : "went down while its bulk lane was being set up");
            }
            ready = true;
        }
        liveLoops.incrementAndGet();
        endpoint.startThread(threadName("p" + link.peer(), "tx"), this::writeLoop);
        LOG.debug("rank {}: {} bulk connection with rank {} ready ({})", host.rank(), lane, link.peer(),
                socket.tls() ? "TLS" : "plain");
        setUp.complete(null);
    }

    /** A protocol error naming the peer (rank -1 while it is not identified yet). */
    ProtocolException protocolError(String what) {
        BulkPeer l = link;
        return host.protocolError(l == null ? -1 : l.peer(), what);
    }

    // ------------------------------------------------------------------ the two threads

    private void readLoop(BulkSetup setup) {
        try {
            if (setup.run()) {
                reader.run();
            }
        } catch (IOException | RuntimeException e) {
            failure.readFailed(e);
        } catch (InterruptedException e) {
            closeSocket(); // only close() interrupts nothing; treat as a close
        } finally {
            loopEnded();
        }
    }

    private void writeLoop() {
        try {
            writer.run();
        } catch (IOException | RuntimeException e) {
            failure.writeFailed(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            writer.ended();
            loopEnded();
        }
    }

    // ------------------------------------------------------------------ sending

    /**
     * Sends {@code message} on this lane (see {@link BulkWriter}): waits for its turn, then moves the frame into
     * output buffers on this thread (a confined payload segment can be read by its owner only) and hands them to the
     * writer. Returns when all of the frame is in output buffers, or at the deadline once it started (the writer then
     * finishes it from a copy).
     *
     * @throws PeerFailedException if the peer is down or the lane failed
     * @throws OperationTimeoutException if the frame could not be started before the deadline
     * @throws OperationCancelledException if the calling thread is interrupted before the frame was started
     */
    public void send(Message message, Deadline deadline, ContextSource context) {
        writer.send(message, deadline, context);
    }

    /**
     * Queues {@code goodbye} as this lane's last frame, after the frames sent so far, without waiting (event loop);
     * no frame is accepted after it. A bulk lane that ends without it counts as cut.
     */
    public void writeNow(Message goodbye) {
        writer.queueGoodbye(goodbye);
    }

    /**
     * A waiting caller reads this connection itself, if nobody else does at the moment: reads and delivers what the
     * socket has now. Never waits; an end or an error seen here is left to the reader thread.
     *
     * @param now {@link System#nanoTime()}
     * @return true if at least one message was delivered
     */
    public boolean tryPoll(long now) {
        return reader.tryPoll(now);
    }

    /**
     * A waiting caller keeps this connection (the reader thread stays off it, as after {@link #tryPoll}) without
     * reading it now: it waits for another peer.
     *
     * @param now {@link System#nanoTime()}
     */
    public void drive(long now) {
        reader.drive(now);
    }

    /** The caller that polled is going to sleep: the reader thread reads the socket again from now on. */
    public void handBack() {
        reader.handBack();
    }

    /** Ends this rank's output after the frames sent so far (TLS close_notify, then FIN); reading goes on. */
    public void finishOutput() {
        writer.finishOutput();
    }

    /** Wakes senders waiting on this lane, for example because the peer went down. Any thread. */
    public void wakeSenders() {
        writer.wake();
    }

    /** This connection's writer (its counters are read by tests: BulkProbes in this module's tests). */
    BulkWriter writer() {
        return writer;
    }

    /** This connection's reader (its counters are read by tests: BulkProbes in this module's tests). */
    BulkReader reader() {
        return reader;
    }

    /** The endpoint this connection belongs to. */
    BulkEndpoint endpoint() {
        return endpoint;
    }

    // ------------------------------------------------------------------ end

    /** Closes the connection at once (the peer is gone, or this transport stops). Idempotent, any thread. */
    public void close() {
        closed = true;
        writer.wake();
        closeSocket();
        fallBack(null);
    }

    void closeSocket() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("rank {}: closing a bulk connection failed", host.rank(), e);
        }
        socket.closeSelectors(); // wakes a reader or writer waiting for the socket; frees the channel's descriptor
    }

    /** Decides what a failed read or write of this connection means. */
    BulkLaneFailure failure() {
        return failure;
    }

    /** A loop (reader or writer) ended; the socket is closed once both have. */
    private void loopEnded() {
        if (liveLoops.decrementAndGet() == 0) {
            closed = true;
            closeSocket();
            endpoint.forget(this);
        }
    }

    /**
     * Setup failed: this pair keeps using QUIC. {@code why} completes "rank N ..." (null: say nothing).
     *
     * @return false if the lane was attached, or had fallen back, already
     */
    synchronized boolean fallBack(String why) {
        if (ready || setUp.isDone()) {
            return false;
        }
        if (why != null && !host.isClosing()) {
            String which = lane == null ? "" : lane + " ";
            String who = dialTarget != null ? "the " + which + "bulk connection of rank " + dialTarget.peer()
                    : "a bulk connection from " + remote();
            LOG.warn("rank {}: {} {}; {} messages use QUIC instead", host.rank(), who, why,
                    lane == null ? "its lane's" : lane.toString());
        }
        setUp.complete(null);
        return true;
    }

    String remote() {
        return Addresses.remote(channel);
    }

    /** After setup, the bulk lane failing loses the peer: a message may be half-written. */
    void lose(String why, Throwable cause) {
        LOG.warn("rank {}: rank {} {}", host.rank(), link.peer(), why);
        link.down(why, cause, !host.isClosing());
        close();
        link.quicFailed(why, cause);
    }
}
