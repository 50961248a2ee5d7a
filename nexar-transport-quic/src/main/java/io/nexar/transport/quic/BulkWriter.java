package io.nexar.transport.quic;

import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.util.Deadline;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The sending side of a {@link BulkConnection}: its senders, its two output buffers and its writer thread.
 *
 * <p>{@link #send} (any thread) queues the frame (its header, and a view of the caller's payload: no copy) and waits
 * until the frame is taken whole into output buffers (encrypted, or for plain TCP copied, on the sender's thread), so
 * the caller's memory may be reused when it returns; the writer ({@link #run}) then writes them to the socket. Frames
 * are taken whole, in queue order, so concurrent senders never interleave. A sender waits at most until its deadline:
 * a frame not started by then is withdrawn ({@link OperationTimeoutException}), a frame already started is copied and
 * finished by the writer, as a queued frame would be on QUIC. On plain TCP a frame of at least
 * {@link SenderWrites#DIRECT_MIN_BYTES} in direct memory skips the output buffers: its sender waits for the socket's
 * write turn and writes it from where it lies ({@link #sendDirect}), one copy fewer per byte. Memory: the output
 * buffers ({@link BulkOutput#OUT_BYTES} each) and, for a frame finished by the writer, a copy of its rest.
 *
 * <p>Threading: all state is guarded by one lock, held by nobody while writing to the socket. One thread at a time
 * writes ({@link #socketTurn}): the writer thread, or a sender writing its own frame (a small one that fit one output
 * buffer with nothing queued: {@link #sendOwn}, two rounds of the lock per frame, or {@link #writeOwn} when the socket
 * was busy as the frame came; a large direct one, {@link #sendDirect}). The socket-level halves of the senders' own
 * writes, and their errors, are static helpers in {@link SenderWrites}.
 */
final class BulkWriter {
    private final BulkConnection owner;
    private final BulkOutput output;

    private final ReentrantLock lock = new ReentrantLock();
    /** Senders wait on this one (their turn, a free output buffer). */
    private final Condition changed = lock.newCondition();
    /** The writer thread waits on this one, signalled only when it has work: a sender's change wakes no idle writer. */
    private final Condition work = lock.newCondition();
    /** Output buffers ready to fill, and filled ones for the writer, in order: two in all (double buffering). */
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> full = new ArrayDeque<>();
    /**
     * Who moves a frame into output buffers: nobody, its sender, or the writer thread (a frame whose sender went at
     * its deadline, the Goodbye, a key update, the end of the output). Frames are taken whole, one at a time.
     */
    private Turn frameTurn = Turn.FREE;
    /** Who writes to the socket: nobody, a sender (its own small frame, or a large direct one) or the writer thread. */
    private Turn socketTurn = Turn.FREE;
    /** What is left of a frame whose sender went at its deadline; the writer finishes it. */
    private ByteBuffer[] detached;
    /** The Goodbye to write after the frames sent so far, before close_notify (see {@link #queueGoodbye}). */
    private ByteBuffer[] goodbye;
    private long queuedBytes;
    private int detachedFrames;
    private long ownWrites;
    private long partOwnWrites;
    /** Where the output is in its life; only moves forward ({@link #advance}). */
    private Stage stage = Stage.OPEN;

    /**
     * The output's life: OPEN takes frames; GOODBYE: a Goodbye is queued, to be written after the frames before it,
     * and no frame is taken any more; FINISHING: close_notify and FIN are to be written once nothing else is left;
     * ENDED: the writer thread ended, however.
     */
    private enum Stage {
        OPEN, GOODBYE, FINISHING, ENDED
    }

    /** Moves {@link #stage} forward to {@code next}, never back; under lock. */
    private void advance(Stage next) {
        if (next.compareTo(stage) > 0) {
            stage = next;
        }
    }

    /** Who holds one of the writer's two turns ({@link #frameTurn}, {@link #socketTurn}). */
    private enum Turn {
        FREE, SENDER, WRITER
    }

    BulkWriter(BulkConnection owner, BulkSocket socket) {
        this.owner = owner;
        this.output = socket.output();
        free.add(output.newOutBuffer());
        free.add(output.newOutBuffer());
    }

    /**
     * Writes the HELLO before the writer thread runs (setup only, reader thread), its flags byte set to
     * {@code flags}: on the bulk lane it names the connection's lane (docs/protocol.md 8.1).
     */
    void writeHello(Message hello, int flags) throws IOException {
        ByteBuffer[] srcs = BulkFrames.frameOf(hello);
        srcs[0].put(WireFormat.FLAGS_OFFSET, (byte) flags);
        ByteBuffer out = free.peek();
        while (BulkOutput.hasRemaining(srcs)) {
            output.fill(srcs, out);
            output.flush(out);
        }
    }

    /** See {@link BulkConnection#send}. */
    void send(Message message, Deadline deadline, ErrorContext context) {
        ByteBuffer[] srcs = BulkFrames.frameOf(message);
        long bytes = BulkFrames.remaining(srcs);
        boolean direct = SenderWrites.direct(srcs, bytes, output);
        ByteBuffer own = null;
        lock.lock();
        try {
            checkOpen(context);
            queuedBytes += bytes;
            try {
                while (frameTurn != Turn.FREE) {
                    awaitChange(deadline, context);
                    checkOpen(context);
                }
            } finally {
                queuedBytes -= bytes;
            }
            frameTurn = Turn.SENDER;
            queuedBytes += bytes;
            if (!direct && socketTurn == Turn.FREE && full.isEmpty() && !free.isEmpty()) {
                // nothing waits to be written and nobody writes: this sender writes its frame itself
                socketTurn = Turn.SENDER;
                own = free.poll();
            }
        } finally {
            lock.unlock();
        }
        if (own != null && sendOwn(srcs, bytes, own, context)) {
            return;
        }
        if (direct) {
            boolean handedOver = false;
            try {
                handedOver = sendDirect(srcs, bytes, deadline, context);
            } finally {
                frameDone(handedOver, bytes);
            }
            return;
        }
        boolean handedOver = false;
        try {
            boolean started = own != null;
            while (BulkOutput.hasRemaining(srcs)) {
                ByteBuffer out = takeFree(deadline, context, started);
                if (out == null) { // the deadline passed mid-frame: the writer finishes it from a copy
                    handOver(srcs);
                    handedOver = true;
                    return;
                }
                try {
                    output.fill(srcs, out);
                } catch (IOException | RuntimeException e) {
                    giveBack(out, false);
                    throw SenderWrites.writeFailure(owner, e, context);
                }
                if (!started && !BulkOutput.hasRemaining(srcs) && claimSocket()) {
                    writeOwn(out, context); // the whole frame in one buffer and nothing queued: write it here
                } else {
                    giveBack(out, true);
                }
                started = true;
            }
        } finally {
            frameDone(handedOver, bytes);
        }
    }

    /**
     * The common case of a small frame, with the frame's turn and the socket's taken in one round of the lock by
     * {@link #send}: fills {@code out} and, if the whole frame fit, writes it on the sender's thread without waiting
     * for the socket (what the socket does not take now goes to the writer thread, first in line) and ends the frame
     * in a second round of the lock. Saves the hand-off to the writer thread, and lock rounds, for small frames.
     *
     * @return true if the frame is done; false if it is larger than one output buffer: {@code out}, filled, went to
     *         the writer thread and the sender goes on with the rest as {@link #send}'s buffered path does
     */
    private boolean sendOwn(ByteBuffer[] srcs, long bytes, ByteBuffer out, ErrorContext context) {
        boolean all;
        try {
            output.fill(srcs, out);
            if (BulkOutput.hasRemaining(srcs)) {
                signal(() -> {
                    socketTurn = Turn.FREE;
                    full.add(out);
                });
                return false;
            }
            all = output.tryWrite(out);
        } catch (IOException | RuntimeException e) {
            endOwn(out.clear(), true, bytes, false);
            throw SenderWrites.writeFailure(owner, e, context);
        }
        endOwn(out, all, bytes, true);
        return true;
    }

    /**
     * Ends a frame its sender wrote itself ({@link #sendOwn}): gives back the socket's turn, the frame's turn and
     * {@code out}, to the free buffers if it was written {@code all}, else to the writer thread first in line.
     */
    private void endOwn(ByteBuffer out, boolean all, long bytes, boolean count) {
        lock.lock();
        try {
            returnOwn(out, all, count);
            frameTurn = Turn.FREE;
            queuedBytes -= bytes;
            changed.signalAll();
            if (writerHasWork()) {
                work.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The sender is done with its frame of {@code bytes}: the lane stays busy if it was handed over to the writer.
     * As {@link #signal} with that change, without a lambda per frame.
     */
    private void frameDone(boolean handedOver, long bytes) {
        lock.lock();
        try {
            frameTurn = handedOver ? Turn.WRITER : Turn.FREE;
            queuedBytes -= bytes;
            changed.signalAll();
            if (writerHasWork()) {
                work.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Plain TCP, a large frame in direct memory: waits for the socket's write turn (everything queued before is
     * written) and writes the frame from where it lies, without the copy into an output buffer. At the deadline
     * mid-frame the writer finishes it from a copy, as on the buffered path.
     *
     * @return true if the frame was handed over to the writer (it stays busy until the writer finishes it)
     */
    private boolean sendDirect(ByteBuffer[] srcs, long bytes, Deadline deadline, ErrorContext context) {
        lock.lock();
        try {
            while (socketTurn != Turn.FREE || !full.isEmpty() || detached != null) {
                checkOpen(context);
                awaitChange(deadline, context);
            }
            checkOpen(context);
            socketTurn = Turn.SENDER; // the writer thread keeps off the socket meanwhile
        } finally {
            lock.unlock();
        }
        boolean all;
        try {
            all = SenderWrites.writeFrom(owner, output, srcs, deadline.deadlineNanos());
        } catch (IOException | RuntimeException e) {
            signal(() -> socketTurn = Turn.FREE);
            throw SenderWrites.writeFailure(owner, e, context);
        }
        if (all) {
            signal(() -> {
                socketTurn = Turn.FREE;
                ownWrites++;
            });
            return false;
        }
        if (BulkFrames.remaining(srcs) == bytes) { // nothing written: withdraw the frame
            signal(() -> socketTurn = Turn.FREE);
            throw SenderWrites.tooSlow(owner, deadline, context);
        }
        handOver(srcs);
        signal(() -> socketTurn = Turn.FREE);
        return true;
    }

    /**
     * One wait of a sender whose frame has not started, under lock: until a change, at most until the deadline.
     *
     * @throws OperationTimeoutException at the deadline
     * @throws OperationCancelledException if the thread is interrupted
     */
    private void awaitChange(Deadline deadline, ErrorContext context) {
        long left = deadline.remainingNanos();
        if (left <= 0) {
            throw SenderWrites.tooSlow(owner, deadline, context);
        }
        try {
            changed.awaitNanos(left);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw SenderWrites.interrupted(owner, context);
        }
    }

    /**
     * An empty output buffer, waiting while the writer has both; null at the deadline (or on an interrupt) once the
     * frame started.
     */
    private ByteBuffer takeFree(Deadline deadline, ErrorContext context, boolean started) {
        PeerLink link = owner.link();
        lock.lock();
        try {
            while (free.isEmpty()) {
                if (stage == Stage.ENDED || owner.isClosed()) {
                    link.checkUp(context);
                    throw new PeerFailedException(context.withPeer(link.peer), "cannot complete: rank " + link.peer
                            + "'s bulk lane closed while this message was written");
                }
                long left = deadline.remainingNanos();
                if (left <= 0) {
                    if (started) {
                        return null;
                    }
                    throw SenderWrites.tooSlow(owner, deadline, context);
                }
                try {
                    changed.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    if (started) {
                        return null;
                    }
                    throw SenderWrites.interrupted(owner, context);
                }
            }
            return free.poll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * True if this sender may write to the socket itself: no filled buffer waits and nobody writes (then it writes
     * now, as the writer would next). Frames stay in order: the next sender waits for this frame ({@link #frameTurn}).
     */
    private boolean claimSocket() {
        lock.lock();
        try {
            if (socketTurn != Turn.FREE || !full.isEmpty() || owner.isClosed() || stage == Stage.ENDED) {
                return false;
            }
            socketTurn = Turn.SENDER;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes {@code out} on the sender's thread, without waiting for the socket: what it does not take now goes to
     * the writer thread, first in line. Saves the hand-off to the writer thread for small frames.
     */
    private void writeOwn(ByteBuffer out, ErrorContext context) {
        boolean all;
        try {
            all = output.tryWrite(out);
        } catch (IOException | RuntimeException e) {
            signal(() -> returnOwn(out.clear(), true, false));
            throw SenderWrites.writeFailure(owner, e, context);
        }
        signal(() -> returnOwn(out, all, true));
    }

    /**
     * A sender's own write of {@code out} ended: gives back the socket's turn and {@code out}, to the free buffers if
     * it was written {@code all}, else to the writer thread first in line; {@code count}s it unless it failed. Under
     * lock.
     */
    private void returnOwn(ByteBuffer out, boolean all, boolean count) {
        socketTurn = Turn.FREE;
        if (all) {
            free.add(out);
        } else {
            full.addFirst(out);
        }
        if (count) {
            ownWrites++;
            partOwnWrites += all ? 0 : 1;
        }
    }

    /** Returns {@code out} to the writer: to write it if {@code written}, else unused. */
    private void giveBack(ByteBuffer out, boolean written) {
        signal(() -> (written ? full : free).add(out));
    }

    /** Copies what is left of a frame, so its sender may go, and has the writer finish it (the frame stays busy). */
    private void handOver(ByteBuffer[] srcs) {
        ByteBuffer[] copy = SenderWrites.copyOfRest(srcs);
        signal(() -> {
            detached = copy;
            detachedFrames++;
        });
    }

    /** Throws if the peer is down or this lane can take no frame; under lock. */
    private void checkOpen(ErrorContext context) {
        PeerLink link = owner.link();
        link.checkUp(context);
        if (owner.isClosed() || stage != Stage.OPEN) {
            throw new PeerFailedException(context.withPeer(link.peer), "cannot complete: rank " + link.peer
                    + "'s bulk lane is closed");
        }
    }

    /**
     * The writer thread's loop: writes filled output buffers in order, finishes frames whose sender went at its
     * deadline, answers key updates, and at the end sends close_notify and FIN. Holds no lock while writing. Returns
     * when the output is finished or the connection closed; the caller then calls {@link #ended}.
     */
    void run() throws IOException, InterruptedException {
        while (true) {
            ByteBuffer out;
            ByteBuffer[] fill = null;
            boolean finish = false;
            lock.lock();
            try {
                while (!writerHasWork()) {
                    work.await();
                }
                if (owner.isClosed()) {
                    return;
                }
                socketTurn = Turn.WRITER; // no sender writes its own frame meanwhile
                if (!full.isEmpty()) {
                    out = full.poll();
                } else {
                    out = free.poll(); // both are free: every filled buffer was written
                    if (detached != null) {
                        fill = detached;
                    } else if (goodbyeLeft()) {
                        frameTurn = Turn.WRITER; // the Goodbye, after every frame before it
                        fill = goodbye;
                    } else {
                        frameTurn = Turn.WRITER; // until the key update is sent, or forever once finishing
                        finish = stage == Stage.FINISHING;
                        fill = BulkOutput.NOTHING;
                    }
                }
            } finally {
                lock.unlock();
            }
            if (finish) {
                output.finishOutput(out);
                return;
            }
            if (fill != null) {
                output.fill(fill, out);
            }
            output.flush(out);
            boolean frameDone = fill != null && !BulkOutput.hasRemaining(fill);
            signal(() -> {
                socketTurn = Turn.FREE;
                free.add(out);
                if (frameDone) {
                    detached = null;
                    frameTurn = Turn.FREE;
                }
            });
        }
    }

    /** The writer thread ended, however: senders waiting for an output buffer fail. */
    void ended() {
        signal(() -> advance(Stage.ENDED));
    }

    /** A Goodbye is queued and not yet written; under lock. */
    private boolean goodbyeLeft() {
        return goodbye != null && BulkOutput.hasRemaining(goodbye);
    }

    /** See {@link BulkConnection#writeNow}: queues the Goodbye for the writer thread, without waiting. */
    void queueGoodbye(Message goodbye) {
        ByteBuffer[] frame = BulkFrames.frameOf(goodbye);
        signal(() -> {
            this.goodbye = frame;
            advance(Stage.GOODBYE);
        });
    }

    /** See {@link BulkConnection#finishOutput}. */
    void finishOutput() {
        signal(() -> advance(Stage.FINISHING));
    }

    /** Wakes the writer and every waiting sender, to look at the state again (a close, a key update). Any thread. */
    void wake() {
        signal(() -> { });
    }

    private void signal(Runnable change) {
        lock.lock();
        try {
            change.run();
            changed.signalAll();
            if (writerHasWork()) {
                work.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** True if the writer thread has something to do (or must see a close); under lock. */
    private boolean writerHasWork() {
        return owner.isClosed() || socketTurn == Turn.FREE && (!full.isEmpty() || detached != null
                || frameTurn == Turn.FREE && (stage == Stage.FINISHING || goodbyeLeft() || output.wrapWanted()));
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

    /**
     * Frames their senders wrote to the socket themselves, and of those the ones the socket took only part of (the
     * writer finished them); for tests and diagnostics.
     */
    long[] ownWrites() {
        lock.lock();
        try {
            return new long[] {ownWrites, partOwnWrites};
        } finally {
            lock.unlock();
        }
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
}
