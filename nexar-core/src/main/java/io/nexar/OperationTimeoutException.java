package io.nexar;

import io.nexar.internal.config.Units;
import java.time.Duration;

/**
 * An operation did not complete before its deadline. The message names what it was waiting for, for example
 * {@code recv on rank 2 (world 4, comm 0, tag 7, peer 1) timed out after 30s waiting for rank 1}; after a hang
 * report it carries that report (what each awaited rank was doing).
 *
 * <p>What to do: read the hang report first. Usually a rank never called the matching operation (a program bug: a
 * missing {@code send}, a collective called on some ranks only, different tags) or is stuck in its own computation;
 * fix the program. If the ranks are only slow, raise {@code collective.timeout} or {@code p2p.timeout} or pass a
 * longer per-call deadline ({@link ErrorCode#DEADLINE_EXCEEDED}).
 */
public final class OperationTimeoutException extends NexarException {
    private static final long serialVersionUID = 1L;
    /** The deadline that passed. */
    private final Duration timeout;
    /** The schedule step a collective timed out in, or -1. */
    private final int step;

    /**
     * Creates the exception; its message names the timeout and what the operation waited for.
     *
     * @param context where it happened; its peer is the rank that was awaited, if one was
     * @param timeout the deadline that passed
     * @param waitingFor what the operation was waiting for, for example {@code rank 1}
     */
    public OperationTimeoutException(ErrorContext context, Duration timeout, String waitingFor) {
        super(context, "timed out after " + Units.formatDuration(timeout) + " waiting for " + waitingFor, null);
        this.timeout = timeout;
        this.step = -1;
    }

    /**
     * For a collective operation that timed out inside its schedule, for example {@code allReduce on rank 2 (world 4,
     * comm 0, seq 17, peer 1) timed out after 30s at step 3/6 waiting for rank 1}.
     *
     * @param context where it happened; its peer is the rank that was awaited, if one was
     * @param timeout the deadline that passed
     * @param step the schedule step (round, counted from 0) the operation was in
     * @param steps the number of steps of the schedule
     * @param waitingFor what the step was waiting for, for example {@code rank 1}
     */
    public OperationTimeoutException(ErrorContext context, Duration timeout, int step, int steps, String waitingFor) {
        super(context, "timed out after " + Units.formatDuration(timeout) + " at step " + step + "/" + steps
                + " waiting for " + waitingFor, null);
        this.timeout = timeout;
        this.step = step;
    }

    /** {@return the schedule step (counted from 0) a collective operation timed out in, or -1} */
    public int step() {
        return step;
    }

    /** {@return the timeout that passed} */
    public Duration timeout() {
        return timeout;
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.DEADLINE_EXCEEDED;
    }
}
