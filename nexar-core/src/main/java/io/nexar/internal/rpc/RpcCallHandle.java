package io.nexar.internal.rpc;

import io.nexar.PeerFailedException;
import io.nexar.internal.util.Futures;
import io.nexar.rpc.RpcCall;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The {@link RpcCall} of one {@link PendingCalls.Call}, with the decoding of its response (typed calls) and a hook for
 * peer failures (the communicator announces an automatic recovery through it).
 *
 * @param <R> the response type
 */
public final class RpcCallHandle<R> implements RpcCall<R> {
    /** Runs dependents of {@link #toCompletableFuture()} off the transport thread that completes a call. */
    private static final Executor CALLBACKS = r -> Thread.ofVirtual().name("nexar-rpc-callback").start(r);

    private final PendingCalls.Call call;
    private final Function<MemorySegment, R> decode;
    private final UnaryOperator<PeerFailedException> onPeerFailed;

    RpcCallHandle(PendingCalls.Call call, Function<MemorySegment, R> decode) {
        this(call, decode, e -> e);
    }

    private RpcCallHandle(PendingCalls.Call call, Function<MemorySegment, R> decode,
                          UnaryOperator<PeerFailedException> onPeerFailed) {
        this.call = call;
        this.decode = decode;
        this.onPeerFailed = onPeerFailed;
    }

    /** This call with its response decoded by {@code f}. */
    public <T> RpcCallHandle<T> map(Function<MemorySegment, T> f) {
        return new RpcCallHandle<>(call, f, onPeerFailed);
    }

    /** This call, whose {@link PeerFailedException} goes through {@code hook} before it is thrown by {@link #await}. */
    public RpcCallHandle<R> onPeerFailed(UnaryOperator<PeerFailedException> hook) {
        return new RpcCallHandle<>(call, decode, hook);
    }

    @Override
    public R await() {
        MemorySegment response;
        try {
            response = call.await();
        } catch (PeerFailedException e) {
            throw onPeerFailed.apply(e);
        }
        return decode.apply(response);
    }

    @Override
    public boolean isDone() {
        return call.result.isDone();
    }

    @Override
    public boolean cancel() {
        return call.cancel("was cancelled by the caller");
    }

    @Override
    public CompletableFuture<R> toCompletableFuture() {
        var f = new CompletableFuture<R>();
        call.result.whenCompleteAsync((v, e) -> {
            if (e != null) {
                f.completeExceptionally(Futures.unwrap(e));
                return;
            }
            try {
                f.complete(decode.apply(v));
            } catch (RuntimeException d) {
                f.completeExceptionally(d);
            }
        }, CALLBACKS);
        return f;
    }
}
