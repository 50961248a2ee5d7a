package io.nexar.rpc;

import java.util.concurrent.CompletableFuture;

/**
 * A remote call started by {@link Rpc#callAsync}. It ends exactly once: with the response, or with an
 * {@link io.nexar.RpcException} (the callee failed it), an {@link io.nexar.OperationTimeoutException} (setting
 * {@code rpc.timeout} or the call's own timeout passed), a {@link io.nexar.PeerFailedException} (the callee failed or
 * left) or an {@link io.nexar.OperationCancelledException} ({@link #cancel()}). Thread-safe.
 *
 * @param <R> the response type
 */
public interface RpcCall<R> {

    /**
     * Blocks until the call ends and returns its response. An interrupt while waiting cancels the call.
     *
     * @return the response
     * @throws io.nexar.NexarException how the call failed (see the class description)
     */
    R await();

    /** {@return true once the call ended, successfully or not; never blocks} */
    boolean isDone();

    /**
     * Gives up on the call: unless it already ended, it fails with {@link io.nexar.OperationCancelledException} and
     * the callee is told, which interrupts the handler's thread.
     *
     * @return true if this call cancelled it, false if it had already ended
     */
    boolean cancel();

    /**
     * The call as a future, completed with the response or exceptionally with the call's
     * {@link io.nexar.NexarException}. Its dependent actions run on a virtual thread, never on a transport thread.
     *
     * @return the future of the response
     */
    CompletableFuture<R> toCompletableFuture();
}
