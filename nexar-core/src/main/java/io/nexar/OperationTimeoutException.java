package io.nexar;

import io.nexar.internal.config.Units;
import java.time.Duration;

/**
 * An operation did not complete before its deadline. The message names what it was waiting for, for example
 * {@code recv on rank 2 (world 4, comm 0, tag 7) timed out after 30s waiting for rank 1}.
 */
public final class OperationTimeoutException extends NexarException {
    private static final long serialVersionUID = 1L;
    private final Duration timeout;

    /**
     * @param context where it happened; its peer is the rank that was awaited, if one was
     * @param timeout the deadline that passed
     * @param waitingFor what the operation was waiting for, for example {@code rank 1}
     */
    public OperationTimeoutException(ErrorContext context, Duration timeout, String waitingFor) {
        super(context, "timed out after " + Units.formatDuration(timeout) + " waiting for " + waitingFor, null);
        this.timeout = timeout;
    }

    /** The timeout that passed. */
    public Duration timeout() {
        return timeout;
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.DEADLINE_EXCEEDED;
    }
}
