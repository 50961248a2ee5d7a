package io.nexar;

/**
 * Stable error codes carried by every {@link NexarException}. Each code tells the caller what to do next.
 */
public enum ErrorCode {
    /** A peer or the cluster is not reachable now; retry after recovery or re-formation. */
    UNAVAILABLE,
    /** The operation was aborted (for example by a failed peer); retry at a higher level (restart the step). */
    ABORTED,
    /** The operation's deadline passed before it completed. */
    DEADLINE_EXCEEDED,
    /** The system is not in a state that allows the operation (closed communicator, size mismatch). */
    FAILED_PRECONDITION,
    /** A setting or argument is invalid; fix the input, retrying will not help. */
    INVALID_ARGUMENT,
    /** A peer sent bytes that do not follow the wire protocol. */
    PROTOCOL,
    /** The caller cancelled the operation. */
    CANCELLED,
    /** A bug in nexar; please report it with the message and stack trace. */
    INTERNAL
}
