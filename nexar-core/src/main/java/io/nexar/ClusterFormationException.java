package io.nexar;

/**
 * The cluster could not be formed: a peer was unreachable, the join was refused, or the formation deadline passed.
 * The message names the step (join, formation at the seed, grow) and, where one is known, the seed address or rank.
 *
 * <p>What to do: check that the seed runs and is reachable at the address in the join string (firewall, {@code --bind}
 * address), that every rank uses the same join string and token, and that all {@code --world-size} workers start
 * within the formation timeout; then start the job again ({@link ErrorCode#UNAVAILABLE}). After a failed
 * {@code grow()} the world communicator is unchanged and can be used as before.
 */
public final class ClusterFormationException extends NexarException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception; its message is the context's prefix followed by {@code detail}.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     * @param cause the underlying cause, or null
     */
    public ClusterFormationException(ErrorContext context, String detail, Throwable cause) {
        super(context, detail, cause);
    }

    /**
     * Creates the exception without a cause.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     */
    public ClusterFormationException(ErrorContext context, String detail) {
        this(context, detail, null);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.UNAVAILABLE;
    }
}
