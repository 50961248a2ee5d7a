package io.nexar.rpc;

import java.util.Objects;

/**
 * A function id with the codecs of its request and response: the typed handle that both the callee
 * ({@link Rpc#register(RpcMethod, RpcHandler)}) and its callers ({@link Rpc#call(int, RpcMethod, Object)}) share.
 *
 * <pre>{@code
 * static final RpcMethod<String, Long> LENGTH = RpcMethod.of(7, RpcCodec.utf8(), RpcCodec.int64());
 * comm.rpc().register(LENGTH, (ctx, s) -> (long) s.length());   // every rank, then a barrier
 * long n = comm.rpc().call(1, LENGTH, "hello");                  // 5
 * }</pre>
 *
 * @param functionId the function id, {@code >= 0}
 * @param requestCodec encodes requests (caller) and decodes them (callee)
 * @param responseCodec encodes responses (callee) and decodes them (caller)
 * @param <Q> the request type
 * @param <R> the response type
 */
public record RpcMethod<Q, R>(int functionId, RpcCodec<Q> requestCodec, RpcCodec<R> responseCodec) {

    /**
     * Checks the id and the codecs.
     *
     * @throws IllegalArgumentException if functionId is negative
     * @throws NullPointerException if a codec is null
     */
    public RpcMethod {
        if (functionId < 0) {
            throw new IllegalArgumentException("functionId " + functionId + " is negative");
        }
        Objects.requireNonNull(requestCodec, "requestCodec");
        Objects.requireNonNull(responseCodec, "responseCodec");
    }

    /**
     * The method with this id and codecs.
     *
     * @param <Q> the request type
     * @param <R> the response type
     * @param functionId the function id, {@code >= 0}
     * @param requestCodec encodes requests (caller) and decodes them (callee)
     * @param responseCodec encodes responses (callee) and decodes them (caller)
     * @return the method
     */
    public static <Q, R> RpcMethod<Q, R> of(int functionId, RpcCodec<Q> requestCodec, RpcCodec<R> responseCodec) {
        return new RpcMethod<>(functionId, requestCodec, responseCodec);
    }
}
