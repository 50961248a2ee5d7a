package io.nexar.internal.transport;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link PayloadSink} into memory that its owner (a receive side: the collective engine, the mailbox) lent to the
 * reader and may take back between pieces: the state machine that both receive sides' claims share. The owner creates
 * the claim under its lock, {@link #cancel cancels} it under that lock when the receive ends early, and waits (lock
 * released) while {@link #writing()} is true; the reader's {@link #release} calls come back to the owner, which
 * {@link #settle settles} the claim under its lock. So a piece in progress always finishes into memory that is still
 * the receiver's, nothing is written after the owner took the memory back, and the owner never waits for bytes that
 * have not arrived (only for the one piece being written).
 *
 * <pre>
 *   IDLE --begin--> WRITING --pause--> IDLE --complete: settle(true)--> DONE (the owner commits the bytes)
 *   IDLE --cancel--> DROPPED        WRITING --cancel--> CANCELLING --pause--> DROPPED (release(false))
 *   IDLE --abandon: settle(false)--> DROPPED
 * </pre>
 *
 * <p>After a cancel the reader reads the rest of the payload and drops it ({@link #begin()} refuses), then calls
 * {@link #complete()} all the same: a claim may thus be released twice, once when it stops writing and once when its
 * payload ends.
 */
public abstract class PayloadClaim implements PayloadSink {
    private static final int IDLE = 0;
    private static final int WRITING = 1;
    private static final int CANCELLING = 2;
    private static final int DROPPED = 3;
    private static final int DONE = 4;

    private final AtomicInteger state = new AtomicInteger(IDLE);

    /** For subclasses: a claim starts idle. */
    protected PayloadClaim() {
    }

    @Override
    public final boolean begin() {
        return state.compareAndSet(IDLE, WRITING);
    }

    @Override
    public final void pause() {
        if (!state.compareAndSet(WRITING, IDLE)) { // cancelled while this piece was written: drop the rest
            state.set(DROPPED);
            release(false);
        }
    }

    @Override
    public final void complete() {
        release(true);
    }

    @Override
    public final void abandon() {
        release(false);
    }

    /**
     * The reader is done with this claim, for now or for good: the owner takes its lock, {@link #settle settles} it
     * and releases what the claim held.
     *
     * @param payloadEnded true after the payload's last byte was read ({@link #complete()}); false if the claim
     *                     stopped writing because it was cancelled, or the lane failed ({@link #abandon()})
     */
    protected abstract void release(boolean payloadEnded);

    /**
     * Under the owner's lock, as the receive ends early: stops the claim.
     *
     * @return true if it no longer writes (the owner releases it now); false if a piece is being written (the writer
     *         releases it when the piece ends: wait while {@link #writing()}) or it ended already
     */
    public final boolean cancel() {
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
     * True while a piece is being written into the owner's memory.
     *
     * @return whether the reader is between {@link #begin()} and {@link #pause()}
     */
    public final boolean writing() {
        int s = state.get();
        return s == WRITING || s == CANCELLING;
    }

    /**
     * Under the owner's lock, from {@link #release}: ends the claim unless a cancel did.
     *
     * @param commit the payload's last byte was written ({@code release(true)})
     * @return true if the owner must commit the bytes (commit asked and the claim was not cancelled)
     */
    public final boolean settle(boolean commit) {
        if (state.get() != IDLE) {
            return false; // cancelled (DROPPED), or settled already
        }
        state.set(commit ? DONE : DROPPED);
        return commit;
    }

    /**
     * True once the claim ended: settled or dropped.
     *
     * @return whether nothing is or will be written through this claim any more
     */
    public final boolean ended() {
        int s = state.get();
        return s == DROPPED || s == DONE;
    }
}
