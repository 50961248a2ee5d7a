package io.nexar.internal.collective;

import io.nexar.CollectiveMismatchException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;

/**
 * How an arriving chunk is written into an {@link OpState}'s receive slots: checked against the slot, copied or
 * reduced into its target (with the shard's lock released for a large one), and counted, waking the driver when its
 * round is complete. A chunk claimed as its frame arrives ({@link ChunkClaim}) goes through the same check and count.
 *
 * <p>Stateless: every method works on the operation's state and runs under its communicator's shard lock (the same
 * split as the engine's {@link EngineChunks}).
 */
final class OpWrites {
    private OpWrites() {
    }

    /**
     * Copies or reduces chunk {@code c} from communicator rank {@code src} into {@code op}'s open round's slot, and
     * wakes the driver when the round is complete.
     *
     * @return null, or why the chunk does not fit this rank's schedule (nothing was written)
     */
    static Fingerprint.Mismatch apply(OpState op, int src, Message.Collective c, boolean mayUnlock) {
        return applyTo(op, c.step() == op.round ? op.slots.get(src) : null, src, c, mayUnlock);
    }

    /**
     * Copies or reduces chunk {@code c} from communicator rank {@code src} into {@code slot} (of the open round, or
     * of a later one from {@link OpState#aheadSlot}), and wakes the driver when the open round is complete.
     *
     * @return null, or why the chunk does not fit this rank's schedule (nothing was written)
     */
    static Fingerprint.Mismatch applyTo(OpState op, Slot slot, int src, Message.Collective c, boolean mayUnlock) {
        if (slot == null || slot.done) {
            return new Fingerprint.Mismatch(CollectiveMismatchException.Field.SCHEDULE, "rank " + src
                    + " sent a message for step " + c.step() + " that this rank's schedule does not expect (this rank"
                    + " is at step " + op.round + "; are the ranks configured alike?)");
        }
        long len = c.payload().byteSize();
        if (!fits(op, slot, c, len)) {
            return new Fingerprint.Mismatch(CollectiveMismatchException.Field.SIZE, "step " + c.step()
                    + " expects " + slot.expectedBytes + " bytes from rank " + src + ", which sent " + c.totalBytes());
        }
        slot.receivedBytes += len; // claimed: a chunk over the same bytes now fails the check above
        if (mayUnlock && len >= OpState.UNLOCKED_BYTES) {
            writeUnlocked(op, slot, c);
        } else if (len > 0) {
            writePiece(op, slot, c.offset(), c.payload());
        }
        commit(op, slot, c.step(), len);
        return null;
    }

    /**
     * The slot that {@code len} bytes of chunk {@code c} (its header only) from communicator rank {@code src} may be
     * written into as they arrive, with the bytes claimed and a writer counted; null if the chunk cannot be applied
     * now or does not fit (then it is delivered whole and {@link #applyTo} or the store handles it).
     */
    static Slot claimSlot(OpState op, int src, Message.Collective c, long len) {
        Slot slot = c.step() == op.round ? op.slots.get(src) : c.step() > op.round ? op.aheadSlot(src, c.step())
                : null;
        if (slot == null || slot.done || !fits(op, slot, c, len)) {
            return null;
        }
        slot.receivedBytes += len;
        op.writers++;
        return slot;
    }

    /**
     * Copies or reduces {@code piece}, the bytes of {@code slot}'s receive from byte {@code at} on, into its target. A
     * reducing piece holds whole elements ({@link ChunkClaim}'s reader cuts them so).
     */
    static void writePiece(OpState op, Slot slot, long at, MemorySegment piece) {
        long len = piece.byteSize();
        if (slot.step instanceof Step.RecvReduce r) {
            long n = len / op.type.byteSize();
            if (r.accumulates()) {
                Kernels.reduce(slot.target, slot.byteOffset + at, piece, 0, n, op.type, op.combiner);
            } else { // dst = operand op in: the operand (the caller's input, say) was never copied into dst
                Slice o = r.operand();
                Kernels.reduce(op.buffers[o.buf().ordinal()], o.offset() * op.type.byteSize() + at, piece, 0,
                        slot.target, slot.byteOffset + at, n, op.type, op.combiner);
            }
        } else { // not MemorySegment.copy: C2 miscompiled its small-copy loop here (Segments.copy)
            Segments.copy(piece, 0, slot.target, slot.byteOffset + at, len);
        }
    }

    /**
     * Counts {@code len} bytes written into {@code slot} (of round {@code step}), completing it when all are, and
     * wakes the driver when that completes the open round.
     */
    static void commit(OpState op, Slot slot, int step, long len) {
        slot.committedBytes += len;
        if (slot.committedBytes == slot.expectedBytes) {
            slot.done = true;
            op.progressNanos = System.nanoTime();
            if (step == op.round && --op.remaining == 0) { // a slot of a later round counts when its round opens
                op.wake();
            }
        }
    }

    /**
     * {@link #writePiece} of a whole chunk with the shard's lock released (every hold of it: a delivery may hold
     * it twice), so that a large copy or reduction does not stop every other delivery and driver of the process. The
     * bytes are claimed before and counted after, under the lock; the operation cannot end meanwhile
     * ({@link OpState#awaitWriters}), so nothing writes its buffers after it ended.
     */
    private static void writeUnlocked(OpState op, Slot slot, Message.Collective c) {
        op.writers++;
        int holds = op.lock.getHoldCount();
        for (int i = 0; i < holds; i++) {
            op.lock.unlock();
        }
        try {
            writePiece(op, slot, c.offset(), c.payload());
        } finally {
            for (int i = 0; i < holds; i++) {
                op.lock.lock();
            }
            if (--op.writers == 0) {
                op.wake(); // an ending driver may wait for this write
            }
        }
    }

    /**
     * Whether {@code len} bytes of chunk {@code c} fit {@code slot}'s receive: the sender's total is the receive's,
     * the chunk holds whole elements at an element boundary, and its bytes are not yet received. One rule for a
     * whole chunk ({@link #applyTo}, which reports a misfit) and a claimed one ({@link #claimSlot}, which leaves it
     * to the whole-frame path).
     */
    private static boolean fits(OpState op, Slot slot, Message.Collective c, long len) {
        int w = op.type.byteSize();
        return c.totalBytes() == slot.expectedBytes && c.offset() % w == 0 && len % w == 0
                && slot.receivedBytes + len <= slot.expectedBytes;
    }
}
