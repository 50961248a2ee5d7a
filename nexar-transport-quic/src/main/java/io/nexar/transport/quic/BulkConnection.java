package io.nexar.transport.quic;

import static io.nexar.internal.protocol.WireFormat.HELLO_FRAME_BYTES;
import static io.nexar.internal.protocol.WireFormat.LENGTH_PREFIX_BYTES;
import static io.nexar.internal.protocol.WireFormat.MIN_FRAME_LENGTH;

import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.util.Deadline;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.security.cert.CertificateException;
import java.util.ArrayDeque;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP bulk-lane connection with one peer: its setup, its reader and its writer. Each runs on a virtual thread of
 * its own ({@code nexar-bulk-r<rank>-p<peer>-rx}, {@code -tx}) with blocking socket I/O ({@link BulkSocket}).
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
 * <p><b>Receiving</b> (reader thread). Each frame's length prefix is checked against {@code max.frame.size} before
 * memory is reserved for it (and, before the Hello, must be a Hello's); the frame buffer grows only as bytes arrive,
 * and is reused. Records are decrypted straight into it. A message the handler refuses with {@link Delivery#FULL} is
 * offered again with {@link InboundHandler#deliverWaiting}: the reader waits, stops reading the socket, TCP's window
 * closes and the peer's writer waits. Other lanes are not affected.
 *
 * <p><b>Sending</b> (any thread). {@link #send} queues the frame (its header, and a view of the caller's payload: no
 * copy) and waits until the writer has taken all of it (encrypted it, or for plain TCP copied it, into its output
 * buffer), so the caller's memory may be reused when it returns; the writer then writes it to the socket. Frames are
 * taken whole, in queue order, so concurrent senders never interleave. A sender waits at most until its deadline:
 * a frame not started by then is withdrawn ({@link OperationTimeoutException}), a frame already started is copied and
 * finished by the writer, as a queued frame would be on QUIC. Memory per connection: the frame buffer, the output
 * buffer ({@link BulkSocket#OUT_BYTES}) and the kernel's socket buffers.
 *
 * <p><b>Failure and end.</b> After setup, a protocol error or a failed read or write loses the peer, like on QUIC: a
 * message may be half-written, and nexar does not resend. {@link #finishOutput} (this rank leaves) sends the frames
 * queued so far, then TLS close_notify and a TCP FIN. The peer's clean end (close_notify, then FIN) counts for its
 * drain, see {@link Connection#checkDrained()}; for TLS an end without close_notify is an error.
 */
final class BulkConnection {
    private static final Logger LOG = LoggerFactory.getLogger(BulkConnection.class);
    /** How long one {@link InboundHandler#deliverWaiting} call waits before the reader checks for a close. */
    private static final long DELIVER_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How long an abrupt end of the socket waits for the QUIC connection's own close reason. */
    private static final long ABRUPT_END_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** First size of the frame buffer; it grows (doubling, at most to the frame's checked size) as bytes arrive. */
    private static final int FIRST_FRAME_BUFFER = 64 << 10;

    private final QuicTransport transport;
    private final BulkEndpoint endpoint;
    private final PeerLink dialTarget;
    private final InetSocketAddress dialAddress;
    private final SocketChannel channel;
    private final BulkSocket socket;
    private final CompletableFuture<Void> setUp = new CompletableFuture<>();
    private final AtomicInteger liveLoops = new AtomicInteger(1);
    private final AtomicBoolean abruptEnd = new AtomicBoolean();
    private volatile PeerLink link;
    private volatile boolean ready;
    private volatile boolean closed;
    private Deadline setupDeadline;

    // ---- reader thread only
    private boolean goodbyeSeen;
    private final ByteBuffer prefix = ByteBuffer.allocateDirect(LENGTH_PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private ByteBuffer frame = ByteBuffer.allocateDirect(FIRST_FRAME_BUFFER);

    // ---- senders and writer, under lock
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Output buffers ready to fill, and filled ones for the writer, in order: two in all (double buffering). */
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> full = new ArrayDeque<>();
    /** A sender (or, for a detached frame, the writer) is moving a frame into output buffers. */
    private boolean frameBusy;
    /** What is left of a frame whose sender went at its deadline; the writer finishes it. */
    private ByteBuffer[] detached;
    /** The Goodbye to write after the frames sent so far, before close_notify (see {@link #writeNow}). */
    private ByteBuffer[] goodbye;
    private long queuedBytes;
    private int detachedFrames;
    private boolean finishRequested;
    private boolean writerDone;

    /**
     * @param dialTarget the link this rank dials (and {@code dialAddress} its bulk address), or null for an accepted
     *                   connection
     * @param channel the socket: not yet connected if dialled, accepted otherwise; blocking
     * @param socket its byte stream (TLS or plain)
     */
    BulkConnection(QuicTransport transport, BulkEndpoint endpoint, PeerLink dialTarget, InetSocketAddress dialAddress,
                   SocketChannel channel, BulkSocket socket) {
        this.transport = transport;
        this.endpoint = endpoint;
        this.dialTarget = dialTarget;
        this.dialAddress = dialAddress;
        this.channel = channel;
        this.socket = socket;
        free.add(socket.newOutBuffer());
        free.add(socket.newOutBuffer());
    }

    /** Completes when the bulk lane is attached, or when this pair stays on QUIC. Never fails. */
    CompletableFuture<Void> setUp() {
        return setUp;
    }

    /** Starts the reader thread, which sets the connection up before {@code setupDeadline} and then reads it. */
    void start(Deadline setupDeadline) {
        this.setupDeadline = setupDeadline;
        long setupNanos = setupDeadline.remainingNanos();
        endpoint.startThread(threadName(dialTarget == null ? "accept" : "p" + dialTarget.peer, "rx"), this::readLoop);
        endpoint.schedule(() -> {
            if (!setUp.isDone()) {
                fallBack("did not finish its setup within " + TimeUnit.NANOSECONDS.toMillis(setupNanos) + "ms");
                closeSocket();
            }
        }, setupNanos);
    }

    private String threadName(String peer, String role) {
        return "nexar-bulk-r" + transport.rank() + "-" + peer + "-" + role;
    }

    // ------------------------------------------------------------------ setup and reading (reader thread)

    private void readLoop() {
        try {
            if (dialTarget != null) {
                int millis = (int) Math.clamp(TimeUnit.NANOSECONDS.toMillis(setupDeadline.remainingNanos()), 1,
                        Integer.MAX_VALUE);
                try {
                    channel.socket().connect(dialAddress, millis);
                } catch (IOException e) {
                    fallBack("could not be reached at " + Texts.format(dialAddress) + " (" + e + ")");
                    closeSocket();
                    return;
                }
            }
            socket.handshake();
            if (!identify()) {
                return;
            }
            if (dialTarget != null) {
                writeDirect(transport.hello());
            }
            Message first = readFrame(true);
            if (first == null) {
                fallBack("closed its bulk lane during setup");
                closeSocket();
                return;
            }
            if (!onHello(first)) {
                return;
            }
            for (Message m = readFrame(false); m != null; m = readFrame(false)) {
                link.noteReceived(); // liveness is judged by what arrives, on every lane
                dispatch(m);
            }
            finished();
        } catch (IOException | RuntimeException e) {
            readFailed(e);
        } catch (InterruptedException e) {
            closeSocket(); // only close() interrupts nothing; treat as a close
        } finally {
            loopEnded();
        }
    }

    /** After the TLS handshake: whom did we reach, or who reached us? False if refused (the pair stays on QUIC). */
    private boolean identify() throws InterruptedException {
        PeerTable table = transport.table();
        if (!socket.tls()) {
            return dialTarget == null || attachable(dialTarget); // an accepted one is identified by its Hello
        }
        try {
            if (dialTarget != null) {
                transport.verifier().verify(socket.session(), table.get(dialTarget.peer).memberId());
                return attachable(dialTarget);
            }
            String member = transport.verifier().verify(socket.session(), null);
            OptionalInt rank = table == null ? OptionalInt.empty() : table.rankOf(member);
            if (rank.isEmpty() || rank.getAsInt() >= transport.rank()) {
                return refuse("its certificate names member " + member + ", which is not a lower rank in the peer"
                        + " table");
            }
            return attachable(transport.link(rank.getAsInt()));
        } catch (CertificateException e) {
            return refuse(e.getMessage());
        }
    }

    /** Checks that {@code l} can take a bulk lane, waiting (within the setup deadline) for its QUIC link. */
    private boolean attachable(PeerLink l) throws InterruptedException {
        try {
            l.ready().get(Math.max(0, setupDeadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // reported below
        }
        String problem = l.isDown() ? "is down" : !l.isReady() ? "has no ready QUIC connection"
                : l.bulk() != null ? "has a bulk lane already" : null;
        if (problem != null) {
            return refuse("rank " + l.peer + " " + problem);
        }
        link = l;
        return true;
    }

    /** The peer's first frame. False if refused; throws on a protocol error. */
    private boolean onHello(Message first) throws IOException {
        if (!(first instanceof Message.Hello h)) {
            throw protocolError("began its bulk lane with " + first.type() + " instead of HELLO");
        }
        if (link == null) { // plain TCP: the Hello names the dialer
            if (h.rank() < 0 || h.rank() >= transport.rank()) {
                throw protocolError("says in its bulk-lane HELLO that it is rank " + h.rank());
            }
            try {
                if (!attachable(transport.link(h.rank()))) {
                    return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return refuse("setup was interrupted");
            }
        }
        if (h.rank() != link.peer || h.worldSize() != transport.worldSize() || h.incarnation() != link.incarnation()) {
            throw protocolError("sent a bulk-lane HELLO (rank " + h.rank() + ", world " + h.worldSize()
                    + ") that does not match its QUIC HELLO");
        }
        if (dialTarget == null) {
            writeDirect(transport.hello());
        }
        if (dialTarget == null) {
            Thread.currentThread().setName(threadName("p" + link.peer, "rx"));
        }
        liveLoops.incrementAndGet();
        endpoint.startThread(threadName("p" + link.peer, "tx"), this::writeLoop);
        if (!link.attachBulk(this)) {
            throw protocolError("opened a second bulk lane");
        }
        ready = true;
        LOG.debug("rank {}: bulk lane with rank {} ready ({})", transport.rank(), link.peer,
                socket.tls() ? "TLS" : "plain");
        setUp.complete(null);
        return true;
    }

    /** Writes a frame before the writer thread runs (setup only). */
    private void writeDirect(Message m) throws IOException {
        ByteBuffer[] srcs = frameOf(m);
        ByteBuffer out = free.peek();
        while (BulkSocket.hasRemaining(srcs)) {
            socket.fill(srcs, out);
            socket.flush(out);
        }
    }

    /** Reads one frame; null if the stream ended cleanly before it. */
    private Message readFrame(boolean first) throws IOException {
        prefix.clear();
        if (!socket.readFully(prefix, true)) {
            return null;
        }
        long length = Integer.toUnsignedLong(prefix.getInt(0));
        int peer = link == null ? -1 : link.peer;
        long max = transport.maxFrameBytes();
        if (length > max) {
            throw protocolError("sent a frame of " + length + " bytes, which exceeds the maximum of " + max + " bytes");
        }
        if (length < MIN_FRAME_LENGTH) {
            throw protocolError("sent a frame of " + length + " bytes, shorter than the " + MIN_FRAME_LENGTH
                    + "-byte type and flags header");
        }
        if (first && length != HELLO_FRAME_BYTES - LENGTH_PREFIX_BYTES) {
            throw protocolError("began its bulk lane with a frame of " + length + " bytes instead of HELLO");
        }
        int size = (int) (LENGTH_PREFIX_BYTES + length);
        ByteBuffer f = frame;
        f.clear();
        prefix.flip();
        f.put(prefix);
        while (f.position() < size) {
            if (f.position() == f.capacity()) { // grow only as bytes arrive, never beyond the checked size
                var bigger = ByteBuffer.allocateDirect((int) Math.min(size, 2L * f.capacity()));
                bigger.put(f.flip());
                f = bigger;
                frame = f;
            }
            f.limit(Math.min(size, f.capacity()));
            socket.readFully(f, false);
        }
        f.flip();
        return MessageCodec.decode(peer, MemorySegment.ofBuffer(f), max);
    }

    private void dispatch(Message m) throws InterruptedException {
        switch (m) {
            case Message.Hello _ -> throw protocolError("sent a second HELLO on its bulk lane");
            case Message.Goodbye _ -> goodbyeSeen = true; // the last frame before a normal end (reason: on QUIC)
            default -> {
                InboundHandler handler = transport.handler();
                if (handler.onMessage(link.peer, m) == Delivery.FULL) {
                    // Back-pressure: wait here; unread bytes stay in the socket, so TCP stops the peer's writer.
                    while (!handler.deliverWaiting(link.peer, m, System.nanoTime() + DELIVER_SLICE_NANOS)) {
                        if (closed) {
                            return;
                        }
                    }
                }
            }
        }
        if (socket.wrapWanted()) {
            signal(); // a key update to answer: the writer does it
        }
    }

    /** The peer ended its output cleanly: the lane was read to its end. */
    private void finished() {
        if (!ready) {
            fallBack("closed its bulk lane during setup");
            return;
        }
        link.bulkFinished();
        if (!goodbyeSeen && !transport.isClosing() && !link.isDown()) {
            // The stream ended without the Goodbye a leaving peer writes first: its process exited or was killed
            // (the kernel closed its socket). That counts at once; QUIC would notice only by the heartbeat timeout.
            lose("closed its bulk lane without saying goodbye (its process exited or was killed)", null);
            return;
        }
        Connection c = link.connection();
        if (c != null) {
            try {
                c.channel().eventLoop().execute(c::checkDrained);
            } catch (RejectedExecutionException stopping) {
                LOG.debug("rank {}: event loop is stopping", transport.rank());
            }
        }
    }

    private void readFailed(Exception e) {
        if (closed) {
            return;
        }
        if (ready && transport.isClosing()) {
            closeSocket(); // this rank is leaving: an abrupt end of the peer's output no longer matters
            return;
        }
        if (!ready) {
            fallBack("failed during setup: " + e.getMessage());
            closeSocket();
            return;
        }
        if (e instanceof IOException io) {
            endedAbruptly("was disconnected after an error on its bulk lane: " + io, io);
            return;
        }
        lose(e instanceof ProtocolException ? "broke the protocol: " + e.getMessage()
                : "was disconnected after an error on its bulk lane: " + e, e);
    }

    private ProtocolException protocolError(String what) {
        int peer = link == null ? -1 : link.peer;
        return new ProtocolException(ErrorContext.of(Operation.DECODE).withPeer(peer), "failed: rank " + peer + " "
                + what);
    }

    // ------------------------------------------------------------------ sending

    /**
     * Sends {@code message} on this lane (see the class comment): waits for its turn, then moves the frame into
     * output buffers on this thread (a confined payload segment can be read by its owner only) and hands them to the
     * writer. Returns when all of the frame is in output buffers, or at the deadline once it started (the writer then
     * finishes it from a copy).
     *
     * @throws PeerFailedException if the peer is down or the lane failed
     * @throws OperationTimeoutException if the frame could not be started before the deadline
     * @throws OperationCancelledException if the calling thread is interrupted before the frame was started
     */
    void send(Message message, Deadline deadline, ErrorContext context) {
        ByteBuffer[] srcs = frameOf(message);
        long bytes = remaining(srcs);
        lock.lock();
        try {
            checkOpen(context);
            queuedBytes += bytes;
            try {
                while (frameBusy) {
                    long left = deadline.remainingNanos();
                    if (left <= 0) {
                        throw new OperationTimeoutException(context.withPeer(link.peer), deadline.timeout(), "rank "
                                + link.peer + " to take more data on its bulk lane (is it posting receives?)");
                    }
                    changed.awaitNanos(left);
                    checkOpen(context);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new OperationCancelledException(context, "was interrupted while waiting for rank " + link.peer
                        + " to take more data");
            } finally {
                queuedBytes -= bytes;
            }
            frameBusy = true;
            queuedBytes += bytes;
        } finally {
            lock.unlock();
        }
        boolean handedOver = false;
        try {
            boolean started = false;
            while (BulkSocket.hasRemaining(srcs)) {
                ByteBuffer out = takeFree(deadline, context, started);
                if (out == null) { // the deadline passed mid-frame: the writer finishes it from a copy
                    handOver(srcs);
                    handedOver = true;
                    return;
                }
                try {
                    socket.fill(srcs, out);
                } catch (IOException | RuntimeException e) {
                    giveBack(out, false);
                    writeFailed(e);
                    throw new PeerFailedException(context.withPeer(link.peer), "cannot complete: writing rank "
                            + link.peer + "'s bulk lane failed: " + e, e);
                }
                started = true;
                giveBack(out, true);
            }
        } finally {
            boolean stillBusy = handedOver;
            signal(() -> {
                frameBusy = stillBusy;
                queuedBytes -= bytes;
            });
        }
    }

    private static long remaining(ByteBuffer[] srcs) {
        long n = 0;
        for (ByteBuffer b : srcs) {
            n += b.remaining();
        }
        return n;
    }

    /**
     * An empty output buffer, waiting while the writer has both; null at the deadline (or on an interrupt) once the
     * frame started.
     */
    private ByteBuffer takeFree(Deadline deadline, ErrorContext context, boolean started) {
        lock.lock();
        try {
            while (free.isEmpty()) {
                if (writerDone || closed) {
                    link.checkUp(context);
                    throw new PeerFailedException(context.withPeer(link.peer), "cannot complete: rank " + link.peer
                            + "'s bulk lane closed while this message was written");
                }
                long left = deadline.remainingNanos();
                if (left <= 0) {
                    if (started) {
                        return null;
                    }
                    throw new OperationTimeoutException(context.withPeer(link.peer), deadline.timeout(), "rank "
                            + link.peer + " to take more data on its bulk lane (is it posting receives?)");
                }
                try {
                    changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    if (started) {
                        return null;
                    }
                    throw new OperationCancelledException(context, "was interrupted while waiting for rank "
                            + link.peer + " to take more data");
                }
            }
            return free.poll();
        } finally {
            lock.unlock();
        }
    }

    /** Returns {@code out} to the writer: to write it if {@code written}, else unused. */
    private void giveBack(ByteBuffer out, boolean written) {
        signal(() -> (written ? full : free).add(out));
    }

    /** Copies what is left of a frame, so its sender may go, and has the writer finish it (the frame stays busy). */
    private void handOver(ByteBuffer[] srcs) {
        ByteBuffer[] copy = new ByteBuffer[srcs.length];
        for (int i = 0; i < srcs.length; i++) {
            copy[i] = ByteBuffer.allocate(srcs[i].remaining());
            copy[i].put(srcs[i].duplicate()).flip();
        }
        signal(() -> {
            detached = copy;
            detachedFrames++;
        });
    }

    /** Frames whose sender went at its deadline, finished by the writer from a copy (for tests and diagnostics). */
    int detachedFrames() {
        lock.lock();
        try {
            return detachedFrames;
        } finally {
            lock.unlock();
        }
    }

    /** The endpoint this connection belongs to. */
    BulkEndpoint endpoint() {
        return endpoint;
    }

    /** Throws if the peer is down or this lane can take no frame; under lock. */
    private void checkOpen(ErrorContext context) {
        link.checkUp(context);
        if (closed || writerDone || finishRequested || goodbye != null) {
            throw new PeerFailedException(context.withPeer(link.peer), "cannot complete: rank " + link.peer
                    + "'s bulk lane is closed");
        }
    }

    /**
     * The writer thread: writes filled output buffers in order, finishes frames whose sender went at its deadline,
     * answers key updates, and at the end sends close_notify and FIN. Holds no lock while writing.
     */
    private void writeLoop() {
        try {
            while (true) {
                ByteBuffer out;
                ByteBuffer[] fill = null;
                boolean finish = false;
                lock.lock();
                try {
                    while (full.isEmpty() && detached == null && !closed
                            && !(!frameBusy && (finishRequested || goodbyeLeft() || socket.wrapWanted()))) {
                        changed.await();
                    }
                    if (closed) {
                        return;
                    }
                    if (!full.isEmpty()) {
                        out = full.poll();
                    } else {
                        out = free.poll(); // both are free: every filled buffer was written
                        if (detached != null) {
                            fill = detached;
                        } else if (goodbyeLeft()) {
                            frameBusy = true; // the Goodbye, after every frame before it
                            fill = goodbye;
                        } else {
                            frameBusy = true; // until the key update is sent, or forever once finishing
                            finish = finishRequested;
                            fill = BulkSocket.NOTHING;
                        }
                    }
                } finally {
                    lock.unlock();
                }
                if (finish) {
                    socket.finishOutput(out);
                    break;
                }
                if (fill != null) {
                    socket.fill(fill, out);
                }
                socket.flush(out);
                boolean frameDone = fill != null && !BulkSocket.hasRemaining(fill);
                signal(() -> {
                    free.add(out);
                    if (frameDone) {
                        detached = null;
                        frameBusy = false;
                    }
                });
            }
        } catch (IOException | RuntimeException e) {
            writeFailed(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            signal(() -> writerDone = true);
            loopEnded();
        }
    }

    /** A Goodbye is queued and not yet written; under lock. */
    private boolean goodbyeLeft() {
        return goodbye != null && BulkSocket.hasRemaining(goodbye);
    }

    private void writeFailed(Exception e) {
        if (!ready || closed || transport.isClosing() || link.isDown()) {
            return;
        }
        String why = "was disconnected (writing its bulk lane failed: " + e + ")";
        if (e instanceof IOException io) {
            endedAbruptly(why, io);
        } else {
            lose(why, e);
        }
    }

    /**
     * The socket ended abruptly (no TLS close_notify, a reset, or an end within a frame). If the peer's QUIC
     * connection is closing too, its reason is the better one: it arrives within a grace period and closes this
     * connection. Otherwise (the peer crashed) the peer is lost once the period ends.
     */
    private void endedAbruptly(String why, IOException e) {
        if (abruptEnd.compareAndSet(false, true)) {
            endpoint.schedule(() -> {
                if (!closed) {
                    lose(why, e);
                }
            }, ABRUPT_END_GRACE_NANOS);
        }
    }

    /**
     * Queues {@code goodbye} as this lane's last frame, after the frames sent so far, without waiting (event loop);
     * no frame is accepted after it. A bulk lane that ends without it counts as cut.
     */
    void writeNow(Message goodbye) {
        ByteBuffer[] frame = frameOf(goodbye);
        signal(() -> this.goodbye = frame);
    }

    /** Ends this rank's output after the frames sent so far (TLS close_notify, then FIN); reading goes on. */
    void finishOutput() {
        signal(() -> finishRequested = true);
    }

    /** Wakes senders waiting on this lane, for example because the peer went down. Any thread. */
    void wakeSenders() {
        signal();
    }

    private void signal() {
        signal(() -> { });
    }

    private void signal(Runnable change) {
        lock.lock();
        try {
            change.run();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Bytes of frames that senders are waiting to hand over or are handing over (for tests and diagnostics). */
    long queuedBytes() {
        lock.lock();
        try {
            return queuedBytes;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ end

    /** Closes the connection at once (the peer is gone, or this transport stops). Idempotent, any thread. */
    void close() {
        closed = true;
        signal();
        closeSocket();
        fallBack(null);
    }

    private void closeSocket() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("rank {}: closing a bulk connection failed", transport.rank(), e);
        }
    }

    /** A loop (reader or writer) ended; the socket is closed once both have. */
    private void loopEnded() {
        if (liveLoops.decrementAndGet() == 0) {
            closed = true;
            closeSocket();
            endpoint.forget(this);
        }
    }

    /** Setup failed: this pair keeps using QUIC. {@code why} completes "rank N ..." (null: say nothing). */
    synchronized void fallBack(String why) {
        if (ready || setUp.isDone()) {
            return;
        }
        if (why != null && !transport.isClosing()) {
            String who = dialTarget != null ? "the bulk lane of rank " + dialTarget.peer : "a bulk connection from "
                    + remote();
            LOG.warn("rank {}: {} {}; large messages use QUIC instead", transport.rank(), who, why);
        }
        setUp.complete(null);
    }

    private String remote() {
        try {
            return Texts.format(channel.getRemoteAddress());
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private boolean refuse(String why) {
        fallBack("was refused: " + why);
        closeSocket();
        return false;
    }

    /** After setup, the bulk lane failing loses the peer: a message may be half-written. */
    private void lose(String why, Throwable cause) {
        LOG.warn("rank {}: rank {} {}", transport.rank(), link.peer, why);
        link.down(why, cause, !transport.isClosing());
        close();
        Connection c = link.connection();
        if (c != null) {
            try {
                c.channel().eventLoop().execute(() -> c.fail(why, cause));
            } catch (RejectedExecutionException stopping) {
                LOG.debug("rank {}: event loop is stopping", transport.rank());
            }
        }
    }

    // ------------------------------------------------------------------ frames

    /**
     * A message as the buffers of one frame: its header, and its payload as a view of the caller's memory (no copy).
     * The length prefix counts the whole frame.
     */
    static ByteBuffer[] frameOf(Message m) {
        MemorySegment payload = switch (m) {
            case Message.Data d -> d.payload();
            case Message.Collective c -> c.payload();
            default -> null;
        };
        if (payload == null || payload.byteSize() == 0) {
            return new ByteBuffer[] {encode(m)};
        }
        long size = MessageCodec.encodedSize(m); // checks every field, the payload size included
        MemorySegment none = payload.asSlice(0, 0);
        Message headerOnly = switch (m) {
            case Message.Data d -> new Message.Data(d.communicator(), d.tag(), d.messageSeq(), d.totalBytes(),
                    d.offset(), none);
            case Message.Collective c -> new Message.Collective(c.communicator(), c.opSeq(), c.step(), c.operation(),
                    c.dataType(), c.reduceOp(), c.root(), c.count(), c.totalBytes(), c.offset(), none);
            default -> throw new IllegalStateException("no payload in " + m.type());
        };
        ByteBuffer header = encode(headerOnly);
        header.order(ByteOrder.LITTLE_ENDIAN).putInt(0, (int) (size - LENGTH_PREFIX_BYTES));
        return new ByteBuffer[] {header, view(payload)};
    }

    private static ByteBuffer encode(Message m) {
        var b = ByteBuffer.allocate(Math.toIntExact(MessageCodec.encodedSize(m)));
        MessageCodec.encode(m, MemorySegment.ofBuffer(b));
        return b;
    }

    /** A ByteBuffer over {@code payload}, or a copy where there can be none (a heap segment of float[] etc.). */
    private static ByteBuffer view(MemorySegment payload) {
        try {
            return payload.asByteBuffer();
        } catch (UnsupportedOperationException e) {
            var copy = ByteBuffer.allocate(Math.toIntExact(payload.byteSize()));
            MemorySegment.ofBuffer(copy).copyFrom(payload);
            return copy;
        }
    }
}
