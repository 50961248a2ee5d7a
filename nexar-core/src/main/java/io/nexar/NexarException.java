package io.nexar;

import java.util.OptionalInt;

/**
 * The one unchecked exception hierarchy of nexar. Every subclass has a stable {@link #code()}, the
 * {@link #operation()} that failed and the {@link #context()} it failed in; callers never parse the message.
 *
 * <p>Thrown by every public operation when the runtime or another rank fails it; the message starts with where
 * ({@link ErrorContext#describe()}: the operation the user called, the rank, and the world size, communicator,
 * sequence number or tag and peer where they exist), and a failed collective also logs the communicator's flight
 * recorder at WARN. Caller mistakes (a root out of range, a buffer too small, a negative count) are not nexar
 * exceptions: they are {@link IllegalArgumentException}s naming the argument and its bound, raised before any
 * communication.
 *
 * <p>What to do: catch the subclass you can act on, or act on {@link #code()} ({@link ErrorCode#UNAVAILABLE}: retry
 * after recovery or restart the job; {@link ErrorCode#DEADLINE_EXCEEDED}: read the hang report the exception carries;
 * {@link ErrorCode#FAILED_PRECONDITION} and {@link ErrorCode#INVALID_ARGUMENT}: fix the program or the setting, a
 * retry cannot help; {@link ErrorCode#INTERNAL}: report it). Each subclass's javadoc ends with a paragraph that
 * starts "What to do" and says which: a convention that {@code ErrorsTest} checks on the sources.
 */
public abstract sealed class NexarException extends RuntimeException
        permits PeerFailedException, OperationTimeoutException, ProtocolException, ClusterFormationException,
        CommunicatorClosedException, MessageSizeMismatchException, InvalidConfigurationException,
        InternalNexarException, OperationCancelledException, CollectiveMismatchException, RpcException {

    /** Where the error happened. */
    private final ErrorContext context;

    /**
     * Creates the exception; its message is the context's prefix followed by {@code detail}.
     *
     * @param context where it happened
     * @param detail the rest of the message after the context prefix
     * @param cause the underlying cause, or null
     */
    NexarException(ErrorContext context, String detail, Throwable cause) {
        super(context.describe() + " " + detail, cause);
        this.context = context;
    }

    /** {@return the stable error code: what the caller should do next} */
    public abstract ErrorCode code();

    /** {@return where the error happened} */
    public ErrorContext context() {
        return context;
    }

    /** {@return the operation that failed} */
    public Operation operation() {
        return context.operation();
    }

    /** {@return the local rank, -1 if no rank was assigned yet} */
    public int rank() {
        return context.rank();
    }

    /** {@return the remote rank involved, if known} */
    public OptionalInt peer() {
        return context.peer() >= 0 ? OptionalInt.of(context.peer()) : OptionalInt.empty();
    }
}
