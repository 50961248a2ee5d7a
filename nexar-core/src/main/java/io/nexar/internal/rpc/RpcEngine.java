package io.nexar.internal.rpc;

import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.internal.collective.Group;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import io.nexar.rpc.RpcHandler;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * RPC for one process: the receive side of the {@link Message.RpcRequest}, {@link Message.RpcResponse} and
 * {@link Message.RpcCancel} messages (from the {@link io.nexar.internal.transport.InboundRouter}, on transport
 * threads, never blocking), the callee's {@link RpcDispatcher} and the caller's {@link PendingCalls}, and the
 * registry of each communicator's functions.
 *
 * <p>Made with the router, before the transport exists; {@link #start} connects it once the transport does (the
 * first world communicator). A request that arrives before that waits for it (the caller's first calls may overtake
 * this process's formation); it cannot find a handler then, and is answered as an unknown function.
 */
public final class RpcEngine implements io.nexar.internal.transport.ReceiveSide {
    private final ConcurrentHashMap<Integer, RpcDispatcher.Binding> bindings = new ConcurrentHashMap<>();
    private final List<Runnable> early = new ArrayList<>();
    private volatile RpcDispatcher dispatcher;
    private volatile PendingCalls calls;
    private volatile Transport transport;
    private long maxPayloadBytes;
    private int maxInFlight;
    private String closed;

    /**
     * Connects this engine to the process's transport (idempotent: the first call wins), then serves the requests
     * that arrived before.
     */
    public void start(Transport t, NexarConfig config) {
        List<Runnable> waiting;
        synchronized (this) {
            if (transport != null || closed != null) {
                return;
            }
            maxPayloadBytes = maxPayloadBytes(config);
            maxInFlight = config.rpcMaxInFlight();
            calls = new PendingCalls(t.rank());
            dispatcher = new RpcDispatcher(t, bindings, config.rpcTimeout(), maxInFlight, maxPayloadBytes);
            transport = t;
            waiting = new ArrayList<>(early);
            early.clear();
        }
        waiting.forEach(Runnable::run);
    }

    /** The largest request or response payload under {@code config}'s frame limit. */
    public static long maxPayloadBytes(NexarConfig config) {
        // The response header is the larger one, with both of its texts at their maximum.
        return config.maxFrameBytes() - (WireFormat.RPC_RESPONSE_TEXT_OFFSET - WireFormat.LENGTH_PREFIX_BYTES)
                - 2L * WireFormat.MAX_TEXT_BYTES;
    }

    /** Makes {@code handlers} the functions of communicator {@code group.id()} (again after a rebuild). */
    public void bind(Group group, Map<Integer, RpcHandler<MemorySegment, MemorySegment>> handlers) {
        bindings.put(group.id(), new RpcDispatcher.Binding(group, handlers));
    }

    /** Removes the functions of communicator {@code id} (it was rebuilt under another id). */
    public void unbind(int id) {
        bindings.remove(id);
    }

    /** Communicator {@code id} was closed here: its functions are gone and its calls fail. */
    public void closeCommunicator(int id, String reason) {
        bindings.remove(id);
        PendingCalls c = calls;
        if (c != null) {
            c.closeCommunicator(id, reason);
        }
    }

    /**
     * Sends a request; see {@link PendingCalls#start}.
     *
     * @throws IllegalStateException if the engine was not started (no world communicator yet)
     */
    public RpcCallHandle<MemorySegment> call(int worldPeer, String callee, ErrorContext context, int functionId,
                                             MemorySegment request, Deadline deadline) {
        PendingCalls c = calls;
        if (c == null) {
            throw new IllegalStateException("RPC is not started on this process");
        }
        return new RpcCallHandle<>(c.start(transport, worldPeer, callee, context, context.communicator(), functionId,
                request, deadline, maxInFlight), x -> x);
    }

    /** The largest request or response payload, in bytes. */
    public long maxPayloadBytes() {
        return maxPayloadBytes;
    }

    /** Handles an RPC message from {@code peer} (transport thread; never blocks). */
    public Delivery onMessage(int peer, Message m) {
        switch (m) {
            case Message.RpcRequest r -> {
                byte[] bytes = r.payload().toArray(ValueLayout.JAVA_BYTE); // the frame is reused after this call
                var copy = new Message.RpcRequest(r.communicator(), r.requestId(), r.functionId(), r.timeoutNanos(),
                        MemorySegment.ofArray(new byte[0]));
                RpcDispatcher d = dispatcher;
                if (d != null || !deferred(() -> dispatcher.onRequest(peer, copy, bytes))) {
                    dispatcher.onRequest(peer, copy, bytes);
                }
            }
            case Message.RpcResponse r -> {
                PendingCalls c = calls;
                if (c != null) {
                    c.onResponse(peer, r);
                }
            }
            case Message.RpcCancel c -> {
                RpcDispatcher d = dispatcher;
                if (d != null || !deferred(() -> dispatcher.onCancel(peer, c.requestId()))) {
                    dispatcher.onCancel(peer, c.requestId());
                }
            }
            default -> throw new IllegalArgumentException("not an RPC message: " + m.type());
        }
        return Delivery.ACCEPTED;
    }

    /** Keeps {@code action} for {@link #start} if not started yet; false if started (run it now). */
    private synchronized boolean deferred(Runnable action) {
        if (transport != null) {
            return false;
        }
        if (closed == null) {
            early.add(action);
        }
        return true;
    }

    /** {@code peer} failed or left: its calls fail, its requests' handlers are interrupted ({@code cause} unused). */
    @Override
    public void onPeerDown(int peer, String why, Throwable cause) {
        PendingCalls c = calls;
        if (c != null) {
            c.onPeerDown(peer, why);
        }
        RpcDispatcher d = dispatcher;
        if (d != null) {
            d.onPeerDown(peer);
        }
    }

    /** Fails every call (recovery policy abort, or this process was excluded); a call's error names its callee. */
    @Override
    public void abortAll(int peer, String why) {
        PendingCalls c = calls;
        if (c != null) {
            c.abortAll(why);
        }
    }

    /** Fails the calls on a communicator its members abandoned. */
    @Override
    public void retire(io.nexar.internal.collective.Group group, int[] failedWorld, String why) {
        PendingCalls c = calls;
        if (c != null) {
            c.failCommunicator(group.id(), why);
        }
    }

    /** Fails every call, interrupts every handler, refuses new requests. Idempotent. */
    @Override
    public void close(String reason) {
        synchronized (this) {
            if (closed != null) {
                return;
            }
            closed = reason;
            early.clear();
        }
        PendingCalls c = calls;
        if (c != null) {
            c.close(reason);
        }
        RpcDispatcher d = dispatcher;
        if (d != null) {
            d.close();
        }
    }

    /** Calls in flight from this process plus requests running here (for tests: 0 once everything ended). */
    public int inFlight() {
        PendingCalls c = calls;
        RpcDispatcher d = dispatcher;
        return (c == null ? 0 : c.size()) + (d == null ? 0 : d.size());
    }
}
