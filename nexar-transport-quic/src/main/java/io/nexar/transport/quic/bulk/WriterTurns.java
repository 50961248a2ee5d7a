package io.nexar.transport.quic.bulk;

import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.util.Deadline;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The state a {@link BulkWriter}'s senders and its writer thread share, and its one lock: the two output buffers
 * (free or filled), who holds the frame's turn and the socket's ({@link Turn}), the rest of a frame whose sender went
 * at its deadline, the queued Goodbye, where the output is in its life ({@link Stage}) and the counters for tests.
 * Also the waits on that state (a change, a free output buffer) and the moves of the output's end (Goodbye, finish,
 * the writer thread's end).
 *
 * <p>Threading: every field is guarded by {@link #lock}; the methods say when they expect it held. The writer's
 * code takes the lock itself where it must do several things in one round ({@link BulkWriter#send}); the others go
 * through {@link #signal}.
 */
final class WriterTurns {
    private final BulkConnection owner;
    private final BulkOutput output;

    final ReentrantLock lock = new ReentrantLock();
    /** Senders wait on this one (their turn, a free output buffer). */
    final Condition changed = lock.newCondition();
    /** The writer thread waits on this one, signalled only when it has work: a sender's change wakes no idle writer. */
    final Condition work = lock.newCondition();
    /** Output buffers ready to fill, and filled ones for the writer, in order: two in all (double buffering). */
    final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    final ArrayDeque<ByteBuffer> full = new ArrayDeque<>();
    /**
     * Who moves a frame into output buffers: nobody, its sender, or the writer thread (a frame whose sender went at
     * its deadline, the Goodbye, a key update, the end of the output). Frames are taken whole, one at a time.
     */
    Turn frameTurn = Turn.FREE;
    /** Who writes to the socket: nobody, a sender (its own small frame, or a large direct one) or the writer thread. */
    Turn socketTurn = Turn.FREE;
    /** What is left of a frame whose sender went at its deadline; the writer finishes it. */
    ByteBuffer[] detached;
    /** The Goodbye to write after the frames sent so far, before close_notify (see {@link #queueGoodbye}). */
    ByteBuffer[] goodbye;
    long queuedBytes;
    int detachedFrames;
    long ownWrites;
    long partOwnWrites;
    /** Where the output is in its life; only moves forward ({@link #advance}). */
    Stage stage = Stage.OPEN;

    /**
     * The output's life: OPEN takes frames; GOODBYE: a Goodbye is queued, to be written after the frames before it,
     * and no frame is taken any more; FINISHING: close_notify and FIN are to be written once nothing else is left;
     * ENDED: the writer thread ended, however.
     */
    enum Stage {
        OPEN, GOODBYE, FINISHING, ENDED
    }

    /** Who holds one of the writer's two turns ({@link #frameTurn}, {@link #socketTurn}). */
    enum Turn {
        FREE, SENDER, WRITER
    }

    WriterTurns(BulkConnection owner, BulkOutput output) {
        this.owner = owner;
        this.output = output;
        free.add(output.newOutBuffer());
        free.add(output.newOutBuffer());
    }

    /** Moves {@link #stage} forward to {@code next}, never back; under lock. */
    private void advance(Stage next) {
        if (next.compareTo(stage) > 0) {
            stage = next;
        }
    }

    /**
     * One wait of a sender whose frame has not started, under lock: until a change, at most until the deadline.
     *
     * @throws OperationTimeoutException at the deadline
     * @throws OperationCancelledException if the thread is interrupted
     */
    void awaitChange(Deadline deadline, ContextSource context) {
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
    ByteBuffer takeFree(Deadline deadline, ContextSource context, boolean started) {
        BulkPeer link = owner.link();
        lock.lock();
        try {
            while (free.isEmpty()) {
                if (stage == Stage.ENDED || owner.isClosed()) {
                    link.checkUp(context);
                    throw new PeerFailedException(context.withPeer(link.peer()), "cannot complete: rank " + link.peer()
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
     * A sender's own write of {@code out} ended: gives back the socket's turn and {@code out}, to the free buffers if
     * it was written {@code all}, else to the writer thread first in line; {@code count}s it unless it failed. Under
     * lock.
     */
    void returnOwn(ByteBuffer out, boolean all, boolean count) {
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

    /** Throws if the peer is down or this lane can take no frame; under lock. */
    void checkOpen(ContextSource context) {
        BulkPeer link = owner.link();
        link.checkUp(context);
        if (owner.isClosed() || stage != Stage.OPEN) {
            throw new PeerFailedException(context.withPeer(link.peer()), "cannot complete: rank " + link.peer()
                    + "'s bulk lane is closed");
        }
    }

    /** {@link BulkWriter#ended}: senders waiting for an output buffer fail. */
    void ended() {
        signal(() -> advance(Stage.ENDED));
    }

    /** A Goodbye is queued and not yet written; under lock. */
    boolean goodbyeLeft() {
        return goodbye != null && BulkOutput.hasRemaining(goodbye);
    }

    /** {@link BulkWriter#queueGoodbye}: queues the Goodbye's frame for the writer thread, without waiting. */
    void queueGoodbye(ByteBuffer[] frame) {
        signal(() -> {
            this.goodbye = frame;
            advance(Stage.GOODBYE);
        });
    }

    /** {@link BulkWriter#finishOutput}: close_notify and FIN once nothing else is left. */
    void finishOutput() {
        signal(() -> advance(Stage.FINISHING));
    }

    /** Makes {@code change} under lock, then wakes every waiting sender, and the writer if it has work. Any thread. */
    void signal(Runnable change) {
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
    boolean writerHasWork() {
        return owner.isClosed() || socketTurn == Turn.FREE && (!full.isEmpty() || detached != null
                || frameTurn == Turn.FREE && (stage == Stage.FINISHING || goodbyeLeft() || output.wrapWanted()));
    }

    /** {@link BulkWriter#queuedBytes}. */
    long queuedBytes() {
        lock.lock();
        try {
            return queuedBytes;
        } finally {
            lock.unlock();
        }
    }

    /** {@link BulkWriter#ownWrites}. */
    long[] ownWrites() {
        lock.lock();
        try {
            return new long[] {ownWrites, partOwnWrites};
        } finally {
            lock.unlock();
        }
    }

    /** {@link BulkWriter#detachedFrames}. */
    int detachedFrames() {
        lock.lock();
        try {
            return detachedFrames;
        } finally {
            lock.unlock();
        }
    }
}
