package io.nexar.transport.quic.bulk;

import static io.nexar.internal.protocol.WireFormat.FLAGS_OFFSET;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.InboundHandler.Delivery;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The receiving side of a {@link BulkConnection}: reads, decrypts and decodes frames and delivers them, driven by
 * whichever thread holds its turn: a caller waiting for a message of this lane ({@link #tryPoll}, through
 * {@link BulkHost#lanes()}), or else the connection's reader thread ({@link #run}).
 *
 * <pre>
 *   caller waiting in a collective or a recv         reader thread
 *   tryPoll(): turn free? read what is there,        run(): while a caller drove the socket within HANDBACK_NANOS,
 *   decode, deliver; never waits                      keep off it (park); else wait in select, then poll()
 *   handBack(): going to sleep, reader take over     terminal outcomes (end, error) are handled here
 * </pre>
 *
 * <p>A small message thus goes from the socket to its matching receive on the thread that waits for it: no wake of a
 * reader thread and no hand-off, which on this project's machines cost 25-35 us each. The reader thread keeps the
 * lane read when no caller is there (back-pressure, end-of-stream detection, messages for later operations).
 *
 * <p>Each frame's length prefix is checked against {@code max.frame.size} before memory is reserved for it (and,
 * before the Hello, must be a Hello's); the frame buffer grows only as bytes arrive, and is reused. Records are
 * decrypted straight into it. A message the handler refuses with {@link Delivery#FULL} is kept ({@code pending}) and
 * nothing more is read from the socket until it is taken: TCP's window closes and the peer's writer waits. Other
 * lanes are not affected. The reader thread waits for room with {@link InboundHandler#deliverWaiting}; callers retry
 * at their next poll.
 *
 * <p>Frame deadline: once the first byte of a frame is in, the rest must keep coming. A frame that receives no byte for
 * {@code heartbeat.timeout}, or is not complete within {@code heartbeat.timeout} plus its size at
 * {@link FrameDeadline#MIN_FRAME_BYTES_PER_SECOND}, fails the lane with a {@link io.nexar.ProtocolException} naming
 * the peer, which is then reported failed: a member that claims a size it never sends, or sends a frame a byte at a
 * time, would otherwise hold its lane (and whatever waits for it) while its heartbeats on QUIC keep it alive. Only
 * bytes missing from the socket count: a reader that was slow to read finds them there.
 *
 * <p>The frame being read (prefix, buffer, deadline, a payload streamed into its destination) is its
 * {@link BulkFrameInput}'s; this class drives it and delivers what it reads.
 *
 * <p>Threading: every read and every frame-state change happens under {@code turn}; {@link #drivenAt} and the
 * terminal flags are the only state shared without it.
 */
final class BulkReader {
    /** How long one {@link InboundHandler#deliverWaiting} call waits before the reader checks for a close. */
    private static final long DELIVER_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** How long the reader thread keeps off the socket after a caller last polled it (callers hand back earlier). */
    static final long HANDBACK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** Frames one poll delivers at most, so one busy connection does not starve the caller's others. */
    private static final int FRAMES_PER_POLL = 64;
    /**
     * Collective and point-to-point chunks with at least this many payload bytes are read straight into their
     * destination when it can be claimed ({@link PayloadStream}).
     */
    static final int STREAM_MIN_BYTES = 64 << 10;
    /** {@link #poll} result: the peer ended its output cleanly. */
    private static final int ENDED = -1;
    /** {@link #poll} result: a message waits for room in the handler's store. */
    private static final int BLOCKED = -2;

    private final BulkConnection owner;
    private final BulkHost host;
    private final BulkSocket socket;
    private final BulkWriter writer;
    private final ReentrantLock turn = new ReentrantLock();
    private boolean goodbyeSeen;
    /** The flags byte of the peer's HELLO: on the bulk lane it names the connection's lane. */
    private int helloFlags = -1;
    /** The frame being read (its buffer, deadline and a payload streamed into its destination); holding the turn. */
    private final BulkFrameInput input;
    /**
     * A decoded message the handler refused for lack of room; its payload is in the frame buffer. Written holding the
     * turn; volatile so that the reader thread sees, before it waits for the socket, that it must not.
     */
    private volatile Message pending;
    /** When a caller last polled; 0 after a hand-back. */
    private volatile long drivenAt;
    private volatile boolean ended;
    /** The last poll stopped at {@link #FRAMES_PER_POLL}: more may be decrypted or buffered already. */
    private volatile boolean backlog;
    private volatile Exception failure;
    private volatile Thread readerThread;
    /** Messages delivered by waiting callers and by the reader thread (diagnostics; written holding the turn). */
    private final DeliveryCounts counts = new DeliveryCounts();

    BulkReader(BulkConnection owner, BulkHost host, BulkSocket socket, BulkWriter writer) {
        this.owner = owner;
        this.host = host;
        this.socket = socket;
        this.writer = writer;
        this.input = new BulkFrameInput(owner, host, socket);
    }

    // ------------------------------------------------------------------ setup (blocking)

    /** Reads the peer's Hello during setup (blocking socket); null if the stream ended cleanly before it. */
    Message readHello() throws IOException {
        ByteBuffer f = input.readHelloFrame();
        if (f == null) {
            return null;
        }
        helloFlags = f.get(FLAGS_OFFSET) & 0xFF;
        f.put(FLAGS_OFFSET, (byte) 0); // the codec checks a HELLO as on every other connection
        return MessageCodec.decode(peer(), MemorySegment.ofBuffer(f), host.maxFrameBytes());
    }

    /** The flags byte of the peer's HELLO (after {@link #readHello}), -1 before. */
    int helloFlags() {
        return helloFlags;
    }

    // ------------------------------------------------------------------ after setup: the reader thread

    /** After setup: reads and delivers frames until the peer's clean end; throws on an error. Reader thread. */
    void run() throws IOException, InterruptedException {
        readerThread = Thread.currentThread();
        while (!owner.isClosed()) {
            int r;
            turn.lock();
            try {
                r = poll();
                if (r == BLOCKED && !awaitRoom()) {
                    return;
                }
            } finally {
                turn.unlock();
            }
            if (r == ENDED) {
                finished();
                return;
            }
            if (r == BLOCKED) {
                continue;
            }
            awaitTurn();
        }
    }

    /** Waits until the socket may have bytes and no caller drives it; returns early for a terminal outcome. */
    private void awaitTurn() throws IOException {
        while (!owner.isClosed() && failure == null && !ended) {
            long since = System.nanoTime() - drivenAt;
            if (since < HANDBACK_NANOS) {
                LockSupport.parkNanos(this, HANDBACK_NANOS - since);
                continue;
            }
            if (!backlog && pending == null) { // what a poll left in the buffers would not wake a select
                long frameLeft = input.frameNanosLeft(System.nanoTime());
                if (frameLeft == Long.MAX_VALUE) {
                    socket.awaitReadable();
                } else {
                    socket.awaitReadable(Math.max(frameLeft, TimeUnit.MILLISECONDS.toNanos(1)));
                }
            }
            return;
        }
    }

    /** Reader thread, holding the turn: waits until the handler takes {@code pending}; false if the lane closed. */
    private boolean awaitRoom() throws InterruptedException {
        InboundHandler handler = host.handler();
        counts.count(true, 1);
        while (!handler.deliverWaiting(owner.link().peer(), pending, System.nanoTime() + DELIVER_SLICE_NANOS)) {
            if (owner.isClosed()) {
                counts.count(true, -1);
                return false;
            }
        }
        pending = null;
        return true;
    }

    // ------------------------------------------------------------------ callers

    /**
     * A waiting caller's turn: reads and delivers what the socket has now, unless another thread reads it at the
     * moment. Never waits. An end or an error seen here is left to the reader thread, which is woken for it.
     *
     * @return true if at least one message was delivered
     */
    boolean tryPoll(long now) {
        drivenAt = now;
        if (!turn.tryLock()) {
            return false;
        }
        int r;
        try {
            r = poll();
        } catch (IOException | RuntimeException e) {
            wakeReaderThread();
            return false;
        } finally {
            turn.unlock();
        }
        if (r == ENDED) {
            wakeReaderThread();
        } else if (r == BLOCKED || backlog) {
            // left for whoever reads next; no socket event may come to end the reader thread's select, so end it now
            // (it then keeps off while callers poll, and takes over after their hand-back)
            socket.wakeReader();
        }
        return r > 0;
    }

    /**
     * Messages delivered so far by waiting callers ({@code [0]}) and by the reader thread ({@code [1]}), and how many
     * of them were chunks read straight into their destination ({@code [2]}); for tests and diagnostics.
     */
    long[] deliveries() {
        return counts.snapshot();
    }

    /**
     * A waiting caller keeps this connection (the reader thread stays off it, as after {@link #tryPoll}) without
     * reading it now: it waits for another peer, and reads this one at its next full poll or hands it back.
     */
    void drive(long now) {
        drivenAt = now;
    }

    /** The caller that polled is going to sleep: the reader thread reads the socket again from now on. */
    void handBack() {
        drivenAt = 0;
        Thread t = readerThread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void wakeReaderThread() {
        handBack();
        if (!owner.isClosed()) {
            socket.wakeReader();
        }
    }

    // ------------------------------------------------------------------ reading, holding the turn

    /**
     * Reads and delivers the frames the socket has now, without waiting: at most {@link #FRAMES_PER_POLL}.
     *
     * @return the number of messages delivered, {@link #ENDED} or {@link #BLOCKED}
     * @throws IOException the connection failed or ended within a frame (also for every later call)
     */
    private int poll() throws IOException {
        Exception f = failure;
        if (f instanceof IOException io) {
            throw io;
        }
        if (f != null) {
            throw (RuntimeException) f;
        }
        if (ended) {
            return ENDED;
        }
        try {
            return readFrames();
        } catch (IOException | RuntimeException e) {
            failure = e;
            input.abandon();
            throw e;
        }
    }

    private int readFrames() throws IOException {
        backlog = false;
        int delivered = 0;
        if (pending != null) {
            if (deliver(pending) == Delivery.FULL) {
                return BLOCKED;
            }
            pending = null;
            delivered++;
        }
        while (delivered < FRAMES_PER_POLL) {
            int r = input.advance();
            if (r == BulkFrameInput.NOTHING) {
                return delivered;
            }
            if (r == BulkFrameInput.ENDED) {
                ended = true;
                return delivered > 0 ? delivered : ENDED;
            }
            if (r == BulkFrameInput.STREAMED) { // delivered into its destination as it was read
                owner.link().noteReceived();
                counts.count(Thread.currentThread() == readerThread, 1);
                counts.countStreamed(); // holding the turn: one writer
            } else {
                Message m = input.decode(peer());
                owner.link().noteReceived(); // liveness is judged by what arrives, on every lane
                if (deliver(m) == Delivery.FULL) {
                    pending = m;
                    return delivered > 0 ? delivered : BLOCKED;
                }
            }
            delivered++;
            if (input.idleAfterFrame()) { // the read that would follow finds nothing: spare its system call
                return delivered;
            }
        }
        backlog = true;
        return delivered;
    }

    private int peer() {
        BulkPeer link = owner.link();
        return link == null ? -1 : link.peer();
    }

    private Delivery deliver(Message m) {
        Delivery d = switch (m) {
            case Message.Hello _ -> throw owner.protocolError("sent a second HELLO on its bulk lane");
            case Message.Goodbye _ -> {
                goodbyeSeen = true; // the last frame before a normal end (reason: on QUIC)
                yield Delivery.ACCEPTED;
            }
            default -> {
                // counted before the handler sees it: the operation it completes may return at once
                boolean byReaderThread = Thread.currentThread() == readerThread;
                counts.count(byReaderThread, 1);
                Delivery taken = host.handler().onMessage(owner.link().peer(), m);
                if (taken == Delivery.FULL) {
                    counts.count(byReaderThread, -1); // kept pending: counted when it is taken
                }
                yield taken;
            }
        };
        if (socket.wrapWanted()) {
            writer.wake(); // a key update to answer: the writer does it
        }
        return d;
    }

    /** The peer ended its output cleanly: the lane was read to its end. Reader thread. */
    private void finished() {
        if (!owner.isReady()) {
            owner.fallBack("closed its bulk lane during setup");
            return;
        }
        BulkPeer link = owner.link();
        owner.markInputEnded();
        if (!goodbyeSeen && !host.isClosing() && !link.isDown()) {
            // The stream ended without the Goodbye a leaving peer writes first: its process exited or was killed
            // (the kernel closed its socket). That counts at once; QUIC would notice only by the heartbeat timeout.
            owner.lose("closed its bulk lane without saying goodbye (its process exited or was killed)", null);
            return;
        }
        link.bulkInputEnded();
    }
}
