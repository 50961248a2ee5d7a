package io.nexar.internal.collective;

import io.nexar.CollectiveMismatchException;
import io.nexar.CollectiveMismatchException.Field;
import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.NexarException;
import io.nexar.PeerFailedException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One communicator's collective state on one process, its shard of the {@link CollectiveEngine}: its own
 * {@link #lock}, which guards this state, its operations in flight ({@link #active}) and every {@link OpState} of
 * them, so that two communicators' deliveries and drivers never wait for each other. What it holds: the next
 * sequence number this rank will post, whether a mismatch broke its collectives, whether it was closed here, and how
 * its last {@link #REMEMBERED} operations ended (so that a chunk arriving after its operation succeeded here is
 * recognised as the mismatch it proves; fixed arrays, nothing allocated per operation).
 */
final class CommState {
    /** Ended operations remembered per communicator. */
    static final int REMEMBERED = 64;

    /** The communicator's id. */
    final int id;
    /** Guards this state, {@link #active} and its operations; never held across I/O or while waiting for space. */
    final ReentrantLock lock = new ReentrantLock();
    /** The communicator's operations posted and not yet ended. */
    final ActiveOps active = new ActiveOps();
    long nextSeq;
    /** The communicator's group, from its first ended operation (null before). */
    Group group;
    /**
     * The last {@link #REMEMBERED} operations that ended here, how and when: the flight recorder, what {@link #idle}
     * reports, and what {@link #succeeded} and {@link #context} look up.
     */
    final FlightRecorder recorder = new FlightRecorder();

    CommState(int id) {
        this.id = id;
    }

    /** Remembers that operation {@code op} ended here, failed if {@code op.failure} is set. */
    void ended(OpState op) {
        group = op.group;
        recorder.record(op, System.nanoTime());
    }

    /** The hang-report line of this communicator when no operation of it is in progress, or null if none ever was. */
    String idle(int id, long now) {
        return recorder.idle(id, now);
    }

    /**
     * The fingerprint of operation {@code seq} if it succeeded here and is still remembered, else null (a failed one
     * may get late chunks: they prove nothing).
     */
    Fingerprint succeeded(long seq) {
        return recorder.succeeded(seq);
    }

    /** The error context of operation {@code seq}, valid when {@link #succeeded} returned its fingerprint. */
    ErrorContext context(long seq) {
        return OpState.contextOf(recorder.succeeded(seq), group, seq); // as the operation's own (OpState#context)
    }
    /** Why the collectives are broken ("seq 3 did not match (COUNT)"), or null. */
    String broken;
    Field brokenField;
    /** Why the communicator was closed here, or null. */
    String closed;
    /**
     * Why this rank retired the communicator ({@link Retirements}), or null: no operation of it is posted here any
     * more; those posted before run to their end.
     */
    String retired;
    /**
     * Members that retired the communicator, by world rank: the notice of each ({@link
     * io.nexar.internal.protocol.AbortReason#RETIRED}, naming the first sequence number it will not post); null until
     * the first notice.
     */
    java.util.Map<Integer, io.nexar.internal.protocol.Message.CollectiveAbort> retiredFrom;

    /** Marks the collectives broken by a mismatch at {@code seq}; true the first time only. */
    boolean markBroken(long seq, Field field) {
        if (broken != null) {
            return false;
        }
        broken = "seq " + seq + " did not match (" + (field == null ? "unknown field" : field) + ")";
        brokenField = field == null ? Field.SCHEDULE : field;
        return true;
    }

    /** True if an operation cannot run here ({@link #refusal} is not null). */
    boolean refuses(String processClosed) {
        return processClosed != null || closed != null || broken != null || retired != null;
    }

    /** The failure of an operation that cannot run here, or null. */
    NexarException refusal(ErrorContext context, String processClosed) {
        if (processClosed != null || closed != null) {
            return new CommunicatorClosedException(context, "failed: " + (processClosed != null ? processClosed
                    : closed));
        }
        if (broken != null) {
            return brokenError(context);
        }
        return retired == null ? null : new PeerFailedException(context, "cannot run: " + retired);
    }

    /** The failure of an operation posted after the collectives broke. */
    CollectiveMismatchException brokenError(ErrorContext context) {
        return new CollectiveMismatchException(context, brokenField, "cannot run: the communicator's collectives are"
                + " broken since " + broken);
    }
}
