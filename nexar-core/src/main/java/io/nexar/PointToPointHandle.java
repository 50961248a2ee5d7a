package io.nexar;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A non-blocking point-to-point operation started by {@link Communicator#isend} or {@link Communicator#irecv} (MPI's
 * request). Its buffer belongs to the operation until it ends: the caller neither writes a send buffer nor reads a
 * receive buffer before {@link #await()} returns or {@link #isDone()} is true. Thread-safe.
 *
 * <p>The operation has one deadline, setting {@code p2p.timeout} from the moment it was started: a receive still
 * pending then fails with {@link OperationTimeoutException} (observed by any of the methods below), and nexar no
 * longer touches its buffer.
 */
public interface PointToPointHandle {

    /**
     * Blocks until the operation ends.
     *
     * @return for a receive, the message's source (in the communicator's numbering), tag and size; for a send, its
     *         destination, tag and size
     * @throws NexarException the operation's failure ({@link OperationTimeoutException},
     *         {@link PeerFailedException}, {@link MessageSizeMismatchException},
     *         {@link OperationCancelledException}, {@link CommunicatorClosedException}); never a
     *         {@code CompletionException} or {@code ExecutionException} around it
     */
    Status await();

    /**
     * Blocks until the operation ends or {@code timeout} passes, whichever is first. When the timeout passes first,
     * the operation goes on (await again, poll or cancel it).
     *
     * @param timeout how long to wait at most
     * @return as {@link #await()}
     * @throws OperationTimeoutException if the operation did not end within {@code timeout} (it is still pending;
     *         {@link #isDone()} is false) or its own deadline passed (it failed)
     * @throws NexarException the operation's failure, as {@link #await()}
     * @throws IllegalArgumentException if timeout is null or negative
     */
    Status await(Duration timeout);

    /**
     * Never blocks (MPI's {@code MPI_Test}).
     *
     * @return true once the operation ended, successfully or not
     */
    boolean isDone();

    /**
     * Cancels a receive that has not ended: it fails with {@link OperationCancelledException}, the message it would
     * have taken stays for the next matching receive (or, if it had started to arrive, the rest of it is dropped),
     * and nexar no longer touches its buffer. A send cannot be cancelled (its data may already be at the receiver):
     * this returns false for a send.
     *
     * @return true if this call cancelled the operation, false if it had already ended or is a send
     */
    boolean cancel();

    /**
     * The operation as a future, completed with its {@link Status} or exceptionally with its
     * {@link NexarException} itself; dependent actions do not run on a transport thread.
     *
     * @return a new future; completing it does not affect the operation
     */
    CompletableFuture<Status> toCompletableFuture();
}
