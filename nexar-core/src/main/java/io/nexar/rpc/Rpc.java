package io.nexar.rpc;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * Remote procedure calls on one communicator ({@link io.nexar.Communicator#rpc()}): any rank registers functions by
 * id, any rank calls them on any rank (itself included), in the communicator's rank numbering.
 *
 * <pre>{@code
 * comm.rpc().register(7, (ctx, req) -> MemorySegment.ofArray(("hi " + ctx.caller()).getBytes()));
 * comm.barrier();                                         // every rank has registered
 * byte[] answer = comm.rpc().call(1, 7, new byte[0]);    // "hi 0" when called from rank 0
 * }</pre>
 *
 * <p><b>Registration</b> is per communicator: a function registered on a communicator answers calls made on that
 * communicator only (a split communicator has its own functions). A call that arrives for a function not registered
 * (yet) is answered at once with an {@link io.nexar.RpcException} of reason {@code UNKNOWN_FUNCTION}; so register
 * before the ranks that call you start (a barrier after registering is the usual way).
 *
 * <p><b>Calls</b> block until the response arrives, at most for setting {@code rpc.timeout} (or the call's own
 * timeout). Concurrent calls to one rank and function are matched by request id, never by order. Every call ends:
 * with the response, an {@link io.nexar.RpcException} (the handler threw, the function is unknown, or the callee is
 * overloaded), an {@link io.nexar.OperationTimeoutException}, a {@link io.nexar.PeerFailedException} when the callee
 * fails or leaves, or an {@link io.nexar.OperationCancelledException} when the caller is interrupted or cancels. A
 * caller that gives up (timeout, cancel, interrupt) tells the callee, whose handler thread is interrupted.
 *
 * <p><b>Back-pressure.</b> At most setting {@code rpc.max.in.flight} calls from this process to one rank are in flight
 * at once (over all communicators); a further call, blocking or async, waits on the caller's thread for one of them to
 * end, within its deadline.
 *
 * <p><b>Limits.</b> A request or response travels as one frame: its size is at most setting {@code max.frame.size}
 * minus a few dozen header bytes ({@link #maxPayloadBytes()}). RPC travels on its own lane, so it never waits behind
 * point-to-point or collective data.
 *
 * <p>Caller mistakes (a rank out of range, a negative function id, a null or oversized request) raise
 * {@link IllegalArgumentException} before anything is sent. Thread-safe.
 */
public interface Rpc {

    /**
     * Registers {@code handler} as function {@code functionId} of this communicator, replacing any handler registered
     * with that id before.
     *
     * @param functionId the function id, {@code >= 0}
     * @param handler answers the calls; it runs on a virtual thread per call
     * @throws IllegalArgumentException if functionId is negative or handler is null
     */
    void register(int functionId, RpcHandler<MemorySegment, MemorySegment> handler);

    /**
     * Registers a typed handler: requests are decoded and responses encoded with the method's codecs.
     *
     * @param <Q> the request type
     * @param <R> the response type
     * @param method the function id and the codecs of its request and response
     * @param handler answers the calls; it runs on a virtual thread per call
     */
    <Q, R> void register(RpcMethod<Q, R> method, RpcHandler<Q, R> handler);

    /**
     * Removes function {@code functionId}; later calls of it fail with reason {@code UNKNOWN_FUNCTION}. Requests
     * already running finish.
     *
     * @param functionId the function id
     * @return true if a handler was registered
     */
    boolean unregister(int functionId);

    /**
     * Calls function {@code functionId} on {@code rank} with the bytes of {@code request} and returns the response,
     * within setting {@code rpc.timeout}.
     *
     * @param rank the callee's rank, in [0, worldSize); may be this rank
     * @param functionId the function to call, {@code >= 0}
     * @param request the request bytes (its whole size)
     * @return the response, a read-only heap segment
     * @throws IllegalArgumentException if rank is not in [0, worldSize), functionId is negative, or the request is
     *         null or larger than {@link #maxPayloadBytes()}
     */
    MemorySegment call(int rank, int functionId, MemorySegment request);

    /**
     * {@link #call(int, int, MemorySegment)} with its own timeout instead of setting {@code rpc.timeout}.
     *
     * @param rank the callee's rank, in [0, worldSize); may be this rank
     * @param functionId the function to call, {@code >= 0}
     * @param request the request bytes (its whole size)
     * @param timeout this call's deadline, instead of setting {@code rpc.timeout}
     * @return the response, a read-only heap segment
     */
    MemorySegment call(int rank, int functionId, MemorySegment request, Duration timeout);

    /**
     * {@link #call(int, int, MemorySegment)} with byte arrays.
     *
     * @param rank the callee's rank, in [0, worldSize); may be this rank
     * @param functionId the function to call, {@code >= 0}
     * @param request the request bytes
     * @return the response bytes
     */
    byte[] call(int rank, int functionId, byte[] request);

    /**
     * A typed call: the request is encoded and the response decoded with the method's codecs.
     *
     * @param <Q> the request type
     * @param <R> the response type
     * @param rank the callee's rank, in [0, worldSize); may be this rank
     * @param method the function id and the codecs of its request and response
     * @param request the request, encoded with the method's request codec
     * @return the decoded response
     */
    <Q, R> R call(int rank, RpcMethod<Q, R> method, Q request);

    /**
     * A typed call with its own timeout.
     *
     * @param <Q> the request type
     * @param <R> the response type
     * @param rank the callee's rank, in [0, worldSize); may be this rank
     * @param method the function id and the codecs of its request and response
     * @param request the request, encoded with the method's request codec
     * @param timeout this call's deadline, instead of setting {@code rpc.timeout}
     * @return the decoded response
     */
    <Q, R> R call(int rank, RpcMethod<Q, R> method, Q request, Duration timeout);

    /**
     * Starts a call and returns its handle once the request is sent (the request's memory may then be reused). Waits
     * first, on this thread, while {@code rpc.max.in.flight} calls to {@code rank} are in flight.
     *
     * @param rank the callee's rank, in [0, worldSize); may be this rank
     * @param functionId the function to call, {@code >= 0}
     * @param request the request bytes (its whole size)
     * @return the call's handle
     */
    RpcCall<MemorySegment> callAsync(int rank, int functionId, MemorySegment request);

    /**
     * {@link #callAsync(int, int, MemorySegment)} with its own timeout.
     *
     * @param rank the callee's rank, in [0, worldSize); may be this rank
     * @param functionId the function to call, {@code >= 0}
     * @param request the request bytes (its whole size)
     * @param timeout this call's deadline, instead of setting {@code rpc.timeout}
     * @return the call's handle
     */
    RpcCall<MemorySegment> callAsync(int rank, int functionId, MemorySegment request, Duration timeout);

    /**
     * A typed asynchronous call.
     *
     * @param <Q> the request type
     * @param <R> the response type
     * @param rank the callee's rank, in [0, worldSize); may be this rank
     * @param method the function id and the codecs of its request and response
     * @param request the request, encoded with the method's request codec
     * @return the call's handle
     */
    <Q, R> RpcCall<R> callAsync(int rank, RpcMethod<Q, R> method, Q request);

    /**
     * The largest request or response, in bytes, that fits in one frame under setting {@code max.frame.size}.
     *
     * @return the largest payload in bytes
     */
    long maxPayloadBytes();
}
