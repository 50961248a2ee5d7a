package io.nexar;

/**
 * The communicator was closed, locally or because the cluster shut down, before or during the operation. The message
 * names the operation, the rank, the world size and the communicator.
 *
 * <p>What to do: this is a program-order problem, not a network one ({@link ErrorCode#FAILED_PRECONDITION}): do not
 * use a communicator after {@code close()}, and close it only once every thread's operations on it have returned.
 * Retrying on the same communicator cannot succeed.
 */
public final class CommunicatorClosedException extends NexarException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception; its message is the context's prefix followed by {@code detail}.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     * @param cause the underlying cause, or null
     */
    public CommunicatorClosedException(ErrorContext context, String detail, Throwable cause) {
        super(context, detail, cause);
    }

    /**
     * Creates the exception without a cause.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     */
    public CommunicatorClosedException(ErrorContext context, String detail) {
        this(context, detail, null);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.FAILED_PRECONDITION;
    }
}
