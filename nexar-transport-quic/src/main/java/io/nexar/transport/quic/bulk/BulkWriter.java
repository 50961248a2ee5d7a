package io.nexar.transport.quic.bulk;

import io.nexar.ErrorContext;
import io.nexar.OperationTimeoutException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.WriterTurns.Stage;
import io.nexar.transport.quic.bulk.WriterTurns.Turn;
import java.io.IOException;
import java.nio.ByteBuffer;

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
 * <p>Threading: all state is guarded by one lock, held by nobody while writing to the socket; the state, the lock and
 * the waits on them are in {@link WriterTurns}. One thread at a time writes ({@link WriterTurns#socketTurn}): the
 * writer thread, or a sender writing its own frame (a small one that fit one output buffer with nothing queued:
 * {@link #sendOwn}, two rounds of the lock per frame, or {@link #writeOwn} when the socket was busy as the frame came;
 * a large direct one, {@link #sendDirect}). The socket-level halves of the senders' own writes, and their errors, are
 * static helpers in {@link SenderWrites}.
 */
final class BulkWriter {
    private final BulkConnection owner;
    private final BulkOutput output;

    /** The state shared with the writer thread, and its lock. */
    private final WriterTurns turns;

    BulkWriter(BulkConnection owner, BulkSocket socket) {
        this.owner = owner;
        this.output = socket.output();
        this.turns = new WriterTurns(owner, output);
    }

    /**
     * Writes the HELLO before the writer thread runs (setup only, reader thread), its flags byte set to
     * {@code flags}: on the bulk lane it names the connection's lane (docs/protocol.md 8.1).
     */
    void writeHello(Message hello, int flags) throws IOException {
        ByteBuffer[] srcs = BulkFrames.frameOf(hello);
        srcs[0].put(WireFormat.FLAGS_OFFSET, (byte) flags);
        ByteBuffer out = turns.free.peek();
        while (BulkOutput.hasRemaining(srcs)) {
            output.fill(srcs, out);
            output.flush(out);
        }
    }

    /** See {@link BulkConnection#send}. */
    void send(Message message, Deadline deadline, ContextSource context) {
        ByteBuffer[] srcs = BulkFrames.frameOf(message);
        long bytes = BulkFrames.remaining(srcs);
        boolean direct = SenderWrites.direct(srcs, bytes, output);
        ByteBuffer own = null;
        turns.lock.lock();
        try {
            turns.checkOpen(context);
            turns.queuedBytes += bytes;
            try {
                while (turns.frameTurn != Turn.FREE) {
                    turns.awaitChange(deadline, context);
                    turns.checkOpen(context);
                }
            } finally {
                turns.queuedBytes -= bytes;
            }
            turns.frameTurn = Turn.SENDER;
            turns.queuedBytes += bytes;
            if (!direct && turns.socketTurn == Turn.FREE && turns.full.isEmpty() && !turns.free.isEmpty()) {
                // nothing waits to be written and nobody writes: this sender writes its frame itself
                turns.socketTurn = Turn.SENDER;
                own = turns.free.poll();
            }
        } finally {
            turns.lock.unlock();
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
                ByteBuffer out = turns.takeFree(deadline, context, started);
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
    private boolean sendOwn(ByteBuffer[] srcs, long bytes, ByteBuffer out, ContextSource context) {
        boolean all;
        try {
            output.fill(srcs, out);
            if (BulkOutput.hasRemaining(srcs)) {
                turns.signal(() -> {
                    turns.socketTurn = Turn.FREE;
                    turns.full.add(out);
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
        turns.lock.lock();
        try {
            turns.returnOwn(out, all, count);
            passFrameTurn(Turn.FREE, bytes);
        } finally {
            turns.lock.unlock();
        }
    }

    /**
     * The sender is done with its frame of {@code bytes}: the lane stays busy if it was handed over to the writer.
     * As {@link WriterTurns#signal} with that change, without a lambda per frame.
     */
    private void frameDone(boolean handedOver, long bytes) {
        turns.lock.lock();
        try {
            passFrameTurn(handedOver ? Turn.WRITER : Turn.FREE, bytes);
        } finally {
            turns.lock.unlock();
        }
    }

    /** Holding the lock: the frame turn goes to {@code next}, its {@code bytes} leave the queue; waiters are told. */
    private void passFrameTurn(Turn next, long bytes) {
        turns.frameTurn = next;
        turns.queuedBytes -= bytes;
        turns.changed.signalAll();
        if (turns.writerHasWork()) {
            turns.work.signal();
        }
    }

    /**
     * Plain TCP, a large frame in direct memory: waits for the socket's write turn (everything queued before is
     * written) and writes the frame from where it lies, without the copy into an output buffer. At the deadline
     * mid-frame the writer finishes it from a copy, as on the buffered path.
     *
     * @return true if the frame was handed over to the writer (it stays busy until the writer finishes it)
     */
    private boolean sendDirect(ByteBuffer[] srcs, long bytes, Deadline deadline, ContextSource context) {
        turns.lock.lock();
        try {
            while (turns.socketTurn != Turn.FREE || !turns.full.isEmpty() || turns.detached != null) {
                turns.checkOpen(context);
                turns.awaitChange(deadline, context);
            }
            turns.checkOpen(context);
            turns.socketTurn = Turn.SENDER; // the writer thread keeps off the socket meanwhile
        } finally {
            turns.lock.unlock();
        }
        boolean all;
        try {
            all = SenderWrites.writeFrom(owner, output, srcs, deadline.deadlineNanos());
        } catch (IOException | RuntimeException e) {
            turns.signal(() -> turns.socketTurn = Turn.FREE);
            throw SenderWrites.writeFailure(owner, e, context);
        }
        if (all) {
            turns.signal(() -> {
                turns.socketTurn = Turn.FREE;
                turns.ownWrites++;
            });
            return false;
        }
        if (BulkFrames.remaining(srcs) == bytes) { // nothing written: withdraw the frame
            turns.signal(() -> turns.socketTurn = Turn.FREE);
            throw SenderWrites.tooSlow(owner, deadline, context);
        }
        handOver(srcs);
        turns.signal(() -> turns.socketTurn = Turn.FREE);
        return true;
    }

    /**
     * True if this sender may write to the socket itself: no filled buffer waits and nobody writes (then it writes
     * now, as the writer would next). Frames stay in order: the next sender waits for this frame
     * ({@link WriterTurns#frameTurn}).
     */
    private boolean claimSocket() {
        turns.lock.lock();
        try {
            if (turns.socketTurn != Turn.FREE || !turns.full.isEmpty() || owner.isClosed()
                    || turns.stage == Stage.ENDED) {
                return false;
            }
            turns.socketTurn = Turn.SENDER;
            return true;
        } finally {
            turns.lock.unlock();
        }
    }

    /**
     * Writes {@code out} on the sender's thread, without waiting for the socket: what it does not take now goes to
     * the writer thread, first in line. Saves the hand-off to the writer thread for small frames.
     */
    private void writeOwn(ByteBuffer out, ContextSource context) {
        boolean all;
        try {
            all = output.tryWrite(out);
        } catch (IOException | RuntimeException e) {
            turns.signal(() -> turns.returnOwn(out.clear(), true, false));
            throw SenderWrites.writeFailure(owner, e, context);
        }
        turns.signal(() -> turns.returnOwn(out, all, true));
    }

    /** Returns {@code out} to the writer: to write it if {@code written}, else unused. */
    private void giveBack(ByteBuffer out, boolean written) {
        turns.signal(() -> (written ? turns.full : turns.free).add(out));
    }

    /** Copies what is left of a frame, so its sender may go, and has the writer finish it (the frame stays busy). */
    private void handOver(ByteBuffer[] srcs) {
        ByteBuffer[] copy = SenderWrites.copyOfRest(srcs);
        turns.signal(() -> {
            turns.detached = copy;
            turns.detachedFrames++;
        });
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
            turns.lock.lock();
            try {
                while (!turns.writerHasWork()) {
                    turns.work.await();
                }
                if (owner.isClosed()) {
                    return;
                }
                turns.socketTurn = Turn.WRITER; // no sender writes its own frame meanwhile
                if (!turns.full.isEmpty()) {
                    out = turns.full.poll();
                } else {
                    out = turns.free.poll(); // both are free: every filled buffer was written
                    if (turns.detached != null) {
                        fill = turns.detached;
                    } else if (turns.goodbyeLeft()) {
                        turns.frameTurn = Turn.WRITER; // the Goodbye, after every frame before it
                        fill = turns.goodbye;
                    } else {
                        turns.frameTurn = Turn.WRITER; // until the key update is sent, or forever once finishing
                        finish = turns.stage == Stage.FINISHING;
                        fill = BulkOutput.NOTHING;
                    }
                }
            } finally {
                turns.lock.unlock();
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
            turns.signal(() -> {
                turns.socketTurn = Turn.FREE;
                turns.free.add(out);
                if (frameDone) {
                    turns.detached = null;
                    turns.frameTurn = Turn.FREE;
                }
            });
        }
    }

    /** The writer thread ended, however: senders waiting for an output buffer fail. */
    void ended() {
        turns.ended();
    }

    /** See {@link BulkConnection#writeNow}: queues the Goodbye for the writer thread, without waiting. */
    void queueGoodbye(Message goodbye) {
        turns.queueGoodbye(BulkFrames.frameOf(goodbye));
    }

    /** See {@link BulkConnection#finishOutput}. */
    void finishOutput() {
        turns.finishOutput();
    }

    /** Wakes the writer and every waiting sender, to look at the state again (a close, a key update). Any thread. */
    void wake() {
        turns.signal(() -> { });
    }

    /** Bytes of frames that senders are waiting to hand over or are handing over (for tests and diagnostics). */
    long queuedBytes() {
        return turns.queuedBytes();
    }

    /**
     * Frames their senders wrote to the socket themselves, and of those the ones the socket took only part of (the
     * writer finished them); for tests and diagnostics.
     */
    long[] ownWrites() {
        return turns.ownWrites();
    }

    /** Frames whose sender went at its deadline, finished by the writer from a copy (for tests and diagnostics). */
    int detachedFrames() {
        return turns.detachedFrames();
    }
}
