package io.nexar;

/**
 * A peer that an operation depends on has failed, disconnected or left. The peer is {@link #peer()}; the message names
 * the operation, this rank, the world size, the communicator and sequence number, and the peer's rank with the cause.
 *
 * <p>What to do ({@link ErrorCode#UNAVAILABLE}): under recovery policy {@code abort} (the default) the job cannot
 * continue: end it, find out why the named rank died (its own output or exit code), and restart from a checkpoint.
 * Under {@code manual}, call {@code shrink()} on the communicator and continue on the communicator it returns; under
 * {@code automatic}, retry the step: the world was rebuilt without the failed rank.
 */
public final class PeerFailedException extends NexarException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception; its message is the context's prefix followed by {@code detail}.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     * @param cause the underlying cause, or null
     */
    public PeerFailedException(ErrorContext context, String detail, Throwable cause) {
        super(context, detail, cause);
    }

    /**
     * Creates the exception without a cause.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     */
    public PeerFailedException(ErrorContext context, String detail) {
        this(context, detail, null);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.UNAVAILABLE;
    }
}
