package io.nexar.internal.comm;

import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.internal.collective.Group;
import io.nexar.internal.config.Units;
import io.nexar.internal.rpc.RpcCallHandle;
import io.nexar.internal.rpc.RpcEngine;
import io.nexar.internal.util.Checks;
import io.nexar.internal.util.Deadline;
import io.nexar.rpc.Rpc;
import io.nexar.rpc.RpcCall;
import io.nexar.rpc.RpcHandler;
import io.nexar.rpc.RpcMethod;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;

/**
 * The {@link Rpc} facet of one {@link TransportCommunicator}: checks the caller's arguments, translates the callee's
 * rank to its world rank, and goes through the process's {@link RpcEngine}. The typed forms are the raw ones with the
 * method's codecs around them.
 */
final class CommunicatorRpc implements Rpc {
    /** The communicator's recovery layer: where a call goes, and how a lost peer's failure is announced. */
    private final Recovery recovery;
    private final RpcEngine engine;
    private final NexarConfig config;
    private final Map<Integer, RpcHandler<MemorySegment, MemorySegment>> handlers;

    CommunicatorRpc(Recovery recovery, RpcEngine engine, NexarConfig config,
                    Map<Integer, RpcHandler<MemorySegment, MemorySegment>> handlers) {
        this.recovery = recovery;
        this.engine = engine;
        this.config = config;
        this.handlers = handlers;
    }

    @Override
    public void register(int functionId, RpcHandler<MemorySegment, MemorySegment> handler) {
        checkFunction(functionId);
        handlers.put(functionId, Checks.notNull("handler", handler));
    }

    @Override
    public <Q, R> void register(RpcMethod<Q, R> method, RpcHandler<Q, R> handler) {
        Checks.notNull("method", method);
        Checks.notNull("handler", handler);
        handlers.put(method.functionId(), (context, request) -> {
            R response = handler.handle(context, method.requestCodec().decode(request));
            return response == null ? null : method.responseCodec().encode(response);
        });
    }

    @Override
    public boolean unregister(int functionId) {
        return handlers.remove(functionId) != null;
    }

    @Override
    public MemorySegment call(int rank, int functionId, MemorySegment request) {
        return call(rank, functionId, request, config.rpcTimeout());
    }

    @Override
    public MemorySegment call(int rank, int functionId, MemorySegment request, Duration timeout) {
        return callAsync(rank, functionId, request, timeout).await();
    }

    @Override
    public byte[] call(int rank, int functionId, byte[] request) {
        return call(rank, functionId, MemorySegment.ofArray(Checks.notNull("request", request)))
                .toArray(ValueLayout.JAVA_BYTE);
    }

    @Override
    public <Q, R> R call(int rank, RpcMethod<Q, R> method, Q request) {
        return call(rank, method, request, config.rpcTimeout());
    }

    @Override
    public <Q, R> R call(int rank, RpcMethod<Q, R> method, Q request, Duration timeout) {
        return start(rank, method, request, timeout).await();
    }

    @Override
    public RpcCall<MemorySegment> callAsync(int rank, int functionId, MemorySegment request) {
        return callAsync(rank, functionId, request, config.rpcTimeout());
    }

    @Override
    public RpcCall<MemorySegment> callAsync(int rank, int functionId, MemorySegment request, Duration timeout) {
        return start(rank, functionId, request, timeout);
    }

    @Override
    public <Q, R> RpcCall<R> callAsync(int rank, RpcMethod<Q, R> method, Q request) {
        return start(rank, method, request, config.rpcTimeout());
    }

    @Override
    public long maxPayloadBytes() {
        return engine.maxPayloadBytes();
    }

    private <Q, R> RpcCallHandle<R> start(int rank, RpcMethod<Q, R> method, Q request, Duration timeout) {
        Checks.notNull("method", method);
        Checks.rank("rank", rank, recovery.view().group().size());
        MemorySegment bytes = method.requestCodec().encode(request);
        return start(rank, method.functionId(), bytes, timeout).map(method.responseCodec()::decode);
    }

    private RpcCallHandle<MemorySegment> start(int rank, int functionId, MemorySegment request, Duration timeout) {
        Checks.rank("rank", rank, recovery.view().group().size());
        checkFunction(functionId);
        Checks.notNull("request", request);
        Checks.notNull("timeout", timeout);
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout " + Units.formatRounded(timeout) + " is not positive");
        }
        if (request.byteSize() > engine.maxPayloadBytes()) {
            throw new IllegalArgumentException("request of " + request.byteSize() + " bytes exceeds the largest RPC"
                    + " payload of " + engine.maxPayloadBytes() + " bytes (setting max.frame.size)");
        }
        var deadline = Deadline.after(timeout);
        View target = recovery.rpcTarget(rank, deadline);
        Group g = target.group();
        int world = g.world(rank);
        String callee = world == rank ? "rank " + rank : "rank " + rank + " (world rank " + world + ")";
        var context = new ErrorContext(Operation.RPC, g.rank(), g.size(), g.id(), -1, -1, rank);
        try {
            return engine.call(world, callee, context, functionId, request, deadline)
                    .onPeerFailed(e -> recovery.afterFailure(e, target.generation()));
        } catch (PeerFailedException e) {
            throw recovery.afterFailure(e, target.generation());
        }
    }

    private static void checkFunction(int functionId) {
        if (functionId < 0) {
            throw new IllegalArgumentException("functionId " + functionId + " is negative");
        }
    }
}
