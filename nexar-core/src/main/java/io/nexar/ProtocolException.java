package io.nexar;

/**
 * A peer sent bytes that violate the wire protocol: an unknown message type or version, a truncated frame, or a length
 * above the configured maximum. The connection to that peer is closed. The message names the peer's rank and what was
 * wrong.
 *
 * <p>What to do: make sure every process of the job runs the same nexar version (the wire version is checked at
 * connection set-up) and the same limits ({@code max.frame.size}); otherwise treat the peer as failed
 * ({@link ErrorCode#PROTOCOL}), and report the message as an issue if both run the same version.
 */
public final class ProtocolException extends NexarException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception; its message is the context's prefix followed by {@code detail}.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     * @param cause the underlying cause, or null
     */
    public ProtocolException(ErrorContext context, String detail, Throwable cause) {
        super(context, detail, cause);
    }

    /**
     * Creates the exception without a cause.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     */
    public ProtocolException(ErrorContext context, String detail) {
        this(context, detail, null);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.PROTOCOL;
    }
}
