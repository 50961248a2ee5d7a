package io.nexar.rpc;

/**
 * A function that other ranks call through {@link Rpc#call}. Registered per communicator and function id with
 * {@link Rpc#register}.
 *
 * <p><b>Threading.</b> Each request runs on its own virtual thread, never on a transport thread, so handlers may block
 * (even call other ranks) without delaying heartbeats, collectives or other calls; several requests (from one or many
 * callers) run at once, so a handler must be thread-safe. When the caller cancels or times out, or the caller fails,
 * the handler's thread is interrupted; its result is then dropped.
 *
 * <p><b>Failures.</b> Whatever the handler throws is answered to the caller as an {@link io.nexar.RpcException} naming
 * the exception's class and message (the exception itself does not travel).
 *
 * @param <Q> the request type
 * @param <R> the response type
 */
@FunctionalInterface
public interface RpcHandler<Q, R> {

    /**
     * Answers one request.
     *
     * @param context who called, and how long the caller waits
     * @param request the request; for the raw form a read-only heap segment the handler may keep
     * @return the response; for the raw form any segment (its bytes are copied before the call ends), null for none
     * @throws Exception to fail the call; the caller gets an {@link io.nexar.RpcException}
     */
    R handle(RpcContext context, Q request) throws Exception;
}
