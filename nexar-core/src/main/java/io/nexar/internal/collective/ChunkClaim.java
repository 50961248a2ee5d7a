package io.nexar.internal.collective;

import io.nexar.internal.transport.PayloadClaim;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;

/**
 * A large chunk of an operation's receive, claimed when its header arrived and written piece by piece as the rest of
 * its frame is read ({@link CollectiveEngine#claim}): straight into the slot's target for a plain receive, reduced
 * into it from the reader's small buffer for a reducing one. The bytes were counted as received at the claim (so a
 * duplicate fails the schedule check as before) and are committed, completing the slot, at {@link #complete()}; a
 * claim abandoned mid-payload counts them out again (they will not come, and {@link OpPeers#stillNeeds} must see the
 * receive still waiting for its sender).
 *
 * <p>While a claim is live the operation counts it as a writer, so {@link CollectiveEngine#end} cannot return while a
 * piece is being written. Ending an operation {@link #cancel cancels} its claims: an idle claim at once, one that is
 * writing when its piece ends; the reader then drops the rest of the payload. So the engine never waits for bytes
 * that have not arrived, and nothing is written into the caller's memory after its call returned. The states are
 * {@link PayloadClaim}'s, shared with the mailbox's claims of point-to-point chunks.
 */
final class ChunkClaim extends PayloadClaim {
    private final CollectiveEngine engine;
    private final OpState op;
    private final Slot slot;
    private final int step;
    private final long at;
    private final long len;
    private final MemorySegment direct;

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
    protected void release(boolean payloadEnded) {
        engine.releaseClaim(op, this, payloadEnded);
    }

    /**
     * Under its operation's shard lock, from the reader (after its last {@link #pause()}): ends the claim, committing
     * its bytes if {@code commit} and nothing cancelled it. True if the caller must release the claim now.
     */
    boolean finish(boolean commit) {
        boolean live = !ended();
        if (settle(commit)) {
            OpWrites.commit(op, slot, step, len);
        } else if (live) { // abandoned (its lane failed mid-payload): those bytes will not come, the slot waits again
            slot.receivedBytes -= len;
        }
        return ended() && !released;
    }

    /** Set once the operation's writer count was lowered for this claim; under the operation's shard lock. */
    boolean released;
}
