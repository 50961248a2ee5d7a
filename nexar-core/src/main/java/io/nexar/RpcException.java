package io.nexar;

/**
 * A remote call reached the callee and failed there: its handler threw, no handler is registered for the function,
 * or the callee already runs as many of this caller's requests as setting {@code rpc.max.in.flight} allows. For
 * example {@code rpc on rank 0 (world 4, comm 0, peer 2) failed on rank 2: function 7 threw
 * java.lang.IllegalStateException: no such key}.
 *
 * <p>The callee's exception is not sent or rebuilt (no Java serialization): {@link #remoteClass()} and
 * {@link #remoteMessage()} carry its class name and message, and {@link #code()} the {@link ErrorCode} the callee
 * chose for it (the code of a {@link NexarException}; {@link ErrorCode#INVALID_ARGUMENT} for an
 * {@link IllegalArgumentException}; {@link ErrorCode#FAILED_PRECONDITION} for an {@link IllegalStateException},
 * {@link UnsupportedOperationException} or an unknown function; {@link ErrorCode#UNAVAILABLE} when overloaded;
 * {@link ErrorCode#ABORTED} otherwise).
 *
 * <p>Timeouts, failed callees and cancellations are not RpcExceptions: they raise {@link OperationTimeoutException},
 * {@link PeerFailedException} and {@link OperationCancelledException}.
 *
 * <p>What to do: act on {@link #code()}: {@link ErrorCode#UNAVAILABLE} (the callee was overloaded) may be retried
 * after a pause; otherwise the callee's handler failed or no handler is registered for the function on that
 * communicator - look at {@link #remoteClass()} and {@link #remoteMessage()}, and fix the handler or register it on
 * every rank before calling it.
 */
public final class RpcException extends NexarException {
    private static final long serialVersionUID = 1L;
    /** Why the callee failed the call. */
    private final Reason reason;
    /** The error code the callee sent. */
    private final ErrorCode code;
    /** The function called. */
    private final int functionId;
    /** The class name of the handler's exception, or empty. */
    private final String remoteClass;
    /** The handler's exception message or the callee's reason, possibly empty. */
    private final String remoteMessage;

    /** Why the callee failed the call. */
    public enum Reason {
        /** The handler threw; {@link RpcException#remoteClass()} names the exception. */
        HANDLER_FAILED,
        /** No handler is registered for the function id on the callee's communicator. */
        UNKNOWN_FUNCTION,
        /** The callee already runs its limit of this caller's requests (setting {@code rpc.max.in.flight}). */
        OVERLOADED
    }

    /**
     * Creates the exception; its message names the callee, the function and why it failed.
     *
     * @param context where the call was made; its peer is the callee
     * @param reason why the callee failed it
     * @param code the error code the callee sent
     * @param functionId the function called
     * @param remoteClass the class name of the handler's exception, or empty
     * @param remoteMessage the handler's exception message or the callee's reason, possibly empty
     */
    public RpcException(ErrorContext context, Reason reason, ErrorCode code, int functionId, String remoteClass,
                        String remoteMessage) {
        super(context, describe(context, reason, functionId, remoteClass, remoteMessage), null);
        this.reason = reason;
        this.code = code;
        this.functionId = functionId;
        this.remoteClass = remoteClass;
        this.remoteMessage = remoteMessage;
    }

    private static String describe(ErrorContext context, Reason reason, int functionId, String remoteClass,
                                   String remoteMessage) {
        String callee = context.peer() >= 0 ? "rank " + context.peer() : "the callee";
        return switch (reason) {
            case HANDLER_FAILED -> "failed on " + callee + ": function " + functionId + " threw " + remoteClass
                    + (remoteMessage.isEmpty() ? "" : ": " + remoteMessage);
            case UNKNOWN_FUNCTION -> "failed on " + callee + ": " + remoteMessage;
            case OVERLOADED -> "was refused by " + callee + ": " + remoteMessage;
        };
    }

    /** {@return why the callee failed the call} */
    public Reason reason() {
        return reason;
    }

    /** {@return the error code the callee chose: what the caller should do next} */
    @Override
    public ErrorCode code() {
        return code;
    }

    /** {@return the function that was called} */
    public int functionId() {
        return functionId;
    }

    /** {@return the fully qualified class name of the exception the handler threw, or empty for other reasons} */
    public String remoteClass() {
        return remoteClass;
    }

    /** {@return the message of the handler's exception (empty if it had none), or the callee's reason} */
    public String remoteMessage() {
        return remoteMessage;
    }
}
