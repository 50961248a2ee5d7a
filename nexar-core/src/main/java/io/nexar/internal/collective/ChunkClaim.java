package io.nexar.internal.collective;

import io.nexar.internal.transport.PayloadSink;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A large chunk of an operation's receive, claimed when its header arrived and written piece by piece as the rest of
 * its frame is read ({@link CollectiveEngine#claim}): straight into the slot's target for a plain receive, reduced
 * into it from the reader's small buffer for a reducing one. The bytes were counted as received at the claim (so a
 * duplicate fails the schedule check as before) and are committed, completing the slot, at {@link #complete()}.
 *
 * <p>While a claim is live the operation counts it as a writer, so {@link CollectiveEngine#end} cannot return while a
 * piece is being written. Ending an operation {@link #cancel cancels} its claims: an idle claim at once, one that is
 * writing when its piece ends; the reader then drops the rest of the payload. So the engine never waits for bytes
 * that have not arrived, and nothing is written into the caller's memory after its call returned.
 *
 * <pre>
 *   IDLE --begin--> WRITING --pause--> IDLE --complete--> DONE (committed)
 *   IDLE --cancel--> DROPPED        WRITING --cancel--> CANCELLING --pause--> DROPPED
 * </pre>
 */
final class ChunkClaim implements PayloadSink {
    private static final int IDLE = 0;
    private static final int WRITING = 1;
    private static final int CANCELLING = 2;
    private static final int DROPPED = 3;
    private static final int DONE = 4;

    private final CollectiveEngine engine;
    private final OpState op;
    private final Slot slot;
    private final int step;
    private final long at;
    private final long len;
    private final MemorySegment direct;
    private final AtomicInteger state = new AtomicInteger(IDLE);

    ChunkClaim(CollectiveEngine engine, OpState op, Slot slot, int step, long at, long len) {
        this.engine = engine;
        this.op = op;
        this.slot = slot;
        this.step = step;
        this.at = at;
        this.len = len;
        this.direct = slot.step instanceof Step.RecvInto && Segments.byteBufferViewable(slot.target)
                ? slot.target.asSlice(slot.byteOffset + at, len) : null;
    }

    @Override
    public MemorySegment direct() {
        return direct;
    }

    @Override
    public int grain() {
        return slot.step instanceof Step.RecvReduce ? op.type.byteSize() : 1;
    }

    @Override
    public void accept(MemorySegment piece, long from) {
        OpWrites.writePiece(op, slot, at + from, piece);
    }

    @Override
    public boolean begin() {
        return state.compareAndSet(IDLE, WRITING);
    }

    @Override
    public void pause() {
        if (!state.compareAndSet(WRITING, IDLE)) { // cancelled while this piece was written: drop the rest
            state.set(DROPPED);
            engine.releaseClaim(op, this, false);
        }
    }

    @Override
    public void complete() {
        engine.releaseClaim(op, this, true);
    }

    @Override
    public void abandon() {
        engine.releaseClaim(op, this, false);
    }

    /**
     * Under the engine's lock, as the operation ends: stops the claim. True if it no longer writes (the caller
     * releases it now); false if a piece is being written (its writer releases it when the piece ends) or it was
     * released already.
     */
    boolean cancel() {
        while (true) {
            int s = state.get();
            if (s == IDLE && state.compareAndSet(IDLE, DROPPED)) {
                return true;
            }
            if (s == WRITING && state.compareAndSet(WRITING, CANCELLING)) {
                return false;
            }
            if (s != IDLE && s != WRITING) {
                return false;
            }
        }
    }

    /**
     * Under the engine's lock, from the reader (after its last {@link #pause()}): ends the claim, committing its bytes
     * if {@code commit} and nothing cancelled it. True if the caller must release the claim now.
     */
    boolean finish(boolean commit) {
        int s = state.get();
        if (s == IDLE) {
            state.set(commit ? DONE : DROPPED);
            if (commit) {
                OpWrites.commit(op, slot, step, len);
            }
            return !released;
        }
        return s == DROPPED && !released;
    }

    /** Set once the operation's writer count was lowered for this claim; under the engine's lock. */
    boolean released;
}
