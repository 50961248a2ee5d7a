package io.nexar;

/**
 * A bug in nexar: an invariant did not hold. The message names the operation, rank and communicator where it happened.
 *
 * <p>What to do: report the message, the stack trace and the flight recorder dump
 * ({@code Communicator.diagnostics()}) as an issue; close the communicator, since its state is not known to be sound.
 */
public final class InternalNexarException extends NexarException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception; its message is the context's prefix followed by {@code detail}.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     * @param cause the underlying cause, or null
     */
    public InternalNexarException(ErrorContext context, String detail, Throwable cause) {
        super(context, detail, cause);
    }

    /**
     * Creates the exception without a cause.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     */
    public InternalNexarException(ErrorContext context, String detail) {
        this(context, detail, null);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.INTERNAL;
    }
}
