package io.nexar.internal.collective;

import io.nexar.CollectiveMismatchException;
import io.nexar.CollectiveMismatchException.Field;
import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.NexarException;

/**
 * One communicator's collective state on one process (guarded by the {@link CollectiveEngine}'s lock): the next
 * sequence number this rank will post, whether a mismatch broke its collectives, whether it was closed here.
 */
final class CommState {
    long nextSeq;
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
