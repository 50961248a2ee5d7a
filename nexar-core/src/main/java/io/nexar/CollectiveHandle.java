package io.nexar;

import java.util.concurrent.CompletableFuture;

/**
 * A collective operation started by an {@code ...Async} method of {@link Communicator}. The operation runs while the
 * caller computes; its buffers belong to it until it ends (neither read nor written by the caller meanwhile).
 * Thread-safe.
 */
public interface CollectiveHandle {

    /**
     * Blocks until the operation ends. An interrupt of the waiting thread cancels the operation (as {@link #cancel()};
     * the other ranks are told) and this method then throws {@link OperationCancelledException} with the thread's
     * interrupt status set.
     *
     * @throws NexarException the operation's failure (timeout, failed peer, mismatch, cancellation), never a
     *         {@code CompletionException} or {@code ExecutionException} around it
     */
    void await();

    /** {@return true once the operation ended, successfully or not; never blocks} */
    boolean isDone();

    /**
     * Asks the operation to stop: unless it already ended, it fails with {@link OperationCancelledException}, the
     * other ranks are told (they fail too) and, once {@link #await()} returns, nexar no longer touches its buffers.
     *
     * @return true if this call cancelled the operation, false if it had already ended or failed
     */
    boolean cancel();

    /**
     * {@return the operation as a future, completed with null or exceptionally with its {@link NexarException}; a new
     * future per call, and cancelling it cancels the operation (as {@link #cancel()})}
     */
    CompletableFuture<Void> toCompletableFuture();
}
