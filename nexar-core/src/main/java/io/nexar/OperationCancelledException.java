package io.nexar;

/**
 * The operation was cancelled by the caller (an interrupt or a cancelled handle). Once this is thrown, nexar no
 * longer writes into the caller's buffer.
 *
 * <p>What to do: nothing, if the cancellation was intended; the thread's interrupt status is set again when an
 * interrupt caused it. A cancelled collective leaves the other ranks waiting for this rank's part: cancel or close
 * the communicator on every rank, not on one.
 */
public final class OperationCancelledException extends NexarException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception; its message is the context's prefix followed by {@code detail}.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     * @param cause the underlying cause, or null
     */
    public OperationCancelledException(ErrorContext context, String detail, Throwable cause) {
        super(context, detail, cause);
    }

    /**
     * Creates the exception without a cause.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     */
    public OperationCancelledException(ErrorContext context, String detail) {
        this(context, detail, null);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.CANCELLED;
    }
}
