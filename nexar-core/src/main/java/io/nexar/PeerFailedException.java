package io.nexar;

/** A peer that an operation depends on has failed, disconnected or left. The peer is {@link #peer()}. */
public final class PeerFailedException extends NexarException {
    private static final long serialVersionUID = 1L;

    /**
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     * @param cause the underlying cause, or null
     */
    public PeerFailedException(ErrorContext context, String detail, Throwable cause) {
        super(context, detail, cause);
    }

    /** Without a cause. */
    public PeerFailedException(ErrorContext context, String detail) {
        this(context, detail, null);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.UNAVAILABLE;
    }
}
