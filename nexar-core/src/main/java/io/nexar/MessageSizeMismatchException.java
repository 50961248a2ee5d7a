package io.nexar;

/**
 * A received message is larger than the buffer posted for it. The message was consumed (it will not match a later
 * receive) and both sizes are reported, with the sender's rank, the tag and the communicator.
 *
 * <p>What to do: make the receive's buffer at least as large as the largest message the sender may send with that tag
 * (or send the size in a message of its own first); the message is lost, so the program's exchange must be repeated
 * at a higher level ({@link ErrorCode#FAILED_PRECONDITION}).
 */
public final class MessageSizeMismatchException extends NexarException {
    private static final long serialVersionUID = 1L;
    /** The size the sender sent, in bytes. */
    private final long messageBytes;
    /** The size of the receive buffer, in bytes. */
    private final long bufferBytes;

    /**
     * Creates the exception; its message names both sizes and the sender.
     *
     * @param context where it happened; its peer is the sender
     * @param messageBytes the size the sender sent
     * @param bufferBytes the size of the receive buffer
     */
    public MessageSizeMismatchException(ErrorContext context, long messageBytes, long bufferBytes) {
        super(context, "received a message of " + messageBytes + " bytes from rank " + context.peer()
                + " but the receive buffer holds only " + bufferBytes + " bytes", null);
        this.messageBytes = messageBytes;
        this.bufferBytes = bufferBytes;
    }

    /** {@return the size of the message that was sent, in bytes} */
    public long messageBytes() {
        return messageBytes;
    }

    /** {@return the size of the buffer that was posted, in bytes} */
    public long bufferBytes() {
        return bufferBytes;
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.FAILED_PRECONDITION;
    }
}
