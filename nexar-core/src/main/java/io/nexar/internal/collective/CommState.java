package io.nexar.internal.collective;

import io.nexar.CollectiveMismatchException;
import io.nexar.CollectiveMismatchException.Field;
import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.NexarException;

/**
 * One communicator's collective state on one process (guarded by the {@link CollectiveEngine}'s lock): the next
 * sequence number this rank will post, whether a mismatch broke its collectives, whether it was closed here, and how
 * its last {@link #REMEMBERED} operations ended (so that a chunk arriving after its operation succeeded here is
 * recognised as the mismatch it proves; fixed arrays, nothing allocated per operation).
 */
final class CommState {
    /** Ended operations remembered per communicator. */
    static final int REMEMBERED = 64;

    long nextSeq;
    /** The communicator's group, from its first ended operation (null before). */
    Group group;
    private final long[] endedSeq = new long[REMEMBERED];
    private final Fingerprint[] endedFingerprint = new Fingerprint[REMEMBERED];
    private final ErrorContext[] endedContext = new ErrorContext[REMEMBERED];

    CommState() {
        java.util.Arrays.fill(endedSeq, -1);
    }

    /** Remembers that operation {@code op} ended here; only successful ones count (a failed one may get late chunks). */
    void ended(OpState op, boolean succeeded) {
        group = op.group;
        lastOperation = op.context.operation();
        lastSeq = op.seq;
        lastSucceeded = succeeded;
        lastEndedNanos = System.nanoTime();
        recorder.record(op, lastEndedNanos);
        int i = (int) (op.seq % REMEMBERED);
        endedSeq[i] = succeeded ? op.seq : -1;
        endedFingerprint[i] = op.fingerprint;
        endedContext[i] = op.context;
    }

    /** The last {@link FlightRecorder#SIZE} operations that ended here. */
    final FlightRecorder recorder = new FlightRecorder();

    /** The last operation that ended here (null before the first), how, and when. */
    private io.nexar.Operation lastOperation;
    private long lastSeq;
    private boolean lastSucceeded;
    private long lastEndedNanos;

    /** The hang-report line of this communicator when no operation of it is in progress, or null if none ever was. */
    String idle(int id, long now) {
        return lastOperation == null ? null : "idle on communicator " + id + " since " + lastOperation.displayName()
                + " #" + lastSeq + (lastSucceeded ? " ended " : " failed ") + OpState.seconds(now - lastEndedNanos)
                + " s ago";
    }

    /** The fingerprint of operation {@code seq} if it succeeded here and is still remembered, else null. */
    Fingerprint succeeded(long seq) {
        int i = (int) (seq % REMEMBERED);
        return endedSeq[i] == seq ? endedFingerprint[i] : null;
    }

    /** The error context of operation {@code seq}, valid when {@link #succeeded} returned its fingerprint. */
    ErrorContext context(long seq) {
        return endedContext[(int) (seq % REMEMBERED)];
    }
    /** Why the collectives are broken ("seq 3 did not match (COUNT)"), or null. */
    String broken;
    Field brokenField;
    /** Why the communicator was closed here, or null. */
    String closed;

    /** Marks the collectives broken by a mismatch at {@code seq}; true the first time only. */
    boolean markBroken(long seq, Field field) {
        if (broken != null) {
            return false;
        }
        broken = "seq " + seq + " did not match (" + (field == null ? "unknown field" : field) + ")";
        brokenField = field == null ? Field.SCHEDULE : field;
        return true;
    }

    /** The failure of an operation that cannot run here, or null. */
    NexarException refusal(ErrorContext context, String processClosed) {
        if (processClosed != null || closed != null) {
            return new CommunicatorClosedException(context, "failed: " + (processClosed != null ? processClosed
                    : closed));
        }
        return broken == null ? null : brokenError(context);
    }

    /** The failure of an operation posted after the collectives broke. */
    CollectiveMismatchException brokenError(ErrorContext context) {
        return new CollectiveMismatchException(context, brokenField, "cannot run: the communicator's collectives are"
                + " broken since " + broken);
    }
}
