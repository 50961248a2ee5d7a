package io.nexar.internal.rpc;

import io.nexar.ErrorCode;
import io.nexar.ErrorContext;
import io.nexar.NexarException;
import io.nexar.Operation;
import io.nexar.ProtocolException;
import io.nexar.internal.collective.Group;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.RpcStatus;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import io.nexar.rpc.RpcContext;
import io.nexar.rpc.RpcHandler;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The callee's side of RPC for one process: runs each request's handler on a virtual thread of its own (never on the
 * transport thread that delivered it) and answers it, always: with the response, with the handler's failure, at once
 * when no handler is registered, or with OVERLOADED when the caller already has {@code rpc.max.in.flight} requests
 * running here (a caller that keeps to the same setting never sees it: it waits for a slot instead). So at most
 * {@code rpc.max.in.flight} handler threads run per caller: the executor is bounded by the callers' slots.
 *
 * <p>A cancel from the caller, the caller's failure or this process's close interrupts the handler's thread and drops
 * its result. A request is counted out exactly once, by whichever of "handler done", "cancelled" and "caller down"
 * removes it from {@link #serving} first.
 */
final class RpcDispatcher {
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    /** The functions of one communicator, and its members (to name the caller by its rank there). */
    record Binding(Group group, Map<Integer, RpcHandler<MemorySegment, MemorySegment>> handlers) {
    }

    private record Key(int peer, long requestId) {
    }

    /** One request being served. */
    private static final class Serving {
        final Key key;
        final int communicator;
        final int functionId;
        final long deadlineNanos;
        final byte[] request;
        volatile Thread thread;
        volatile boolean cancelled;

        Serving(Key key, int communicator, int functionId, long timeoutNanos, byte[] request) {
            this.key = key;
            this.communicator = communicator;
            this.functionId = functionId;
            this.deadlineNanos = System.nanoTime() + timeoutNanos;
            this.request = request;
        }

        /** Marks it cancelled, then interrupts its thread if it started (in that order: see {@link #serve}). */
        void cancel() {
            cancelled = true;
            Thread t = thread;
            if (t != null) {
                t.interrupt();
            }
        }
    }

    private record Context(int caller, int functionId, int communicatorId, long deadlineNanos) implements RpcContext {
        @Override
        public Duration remaining() {
            return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
        }
    }

    private final int rank;
    private final Transport transport;
    private final Duration answerTimeout;
    private final int maxInFlight;
    private final long maxPayloadBytes;
    private final ConcurrentHashMap<Integer, Binding> bindings;
    private final ConcurrentHashMap<Key, Serving> serving = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private volatile boolean closed;

    RpcDispatcher(Transport transport, ConcurrentHashMap<Integer, Binding> bindings, Duration answerTimeout,
                  int maxInFlight, long maxPayloadBytes) {
        this.rank = transport.rank();
        this.transport = transport;
        this.bindings = bindings;
        this.answerTimeout = answerTimeout;
        this.maxInFlight = maxInFlight;
        this.maxPayloadBytes = maxPayloadBytes;
    }

    /**
     * A request from {@code peer} (transport thread; never blocks): starts its handler thread.
     *
     * @param request the payload, already copied out of the frame
     * @throws ProtocolException if the peer reuses the id of a request still running here
     */
    void onRequest(int peer, Message.RpcRequest r, byte[] request) {
        if (closed) {
            return; // this process is closing: the caller hears that from the transport
        }
        var s = new Serving(new Key(peer, r.requestId()), r.communicator(), r.functionId(), r.timeoutNanos(), request);
        if (serving.putIfAbsent(s.key, s) != null) {
            throw new ProtocolException(new ErrorContext(Operation.RPC, rank, transport.worldSize(), r.communicator(),
                    -1, -1, peer), "failed: rank " + peer + " sent RPC"
                    + " request " + r.requestId() + " again while it was running");
        }
        if (inFlight.computeIfAbsent(peer, p -> new AtomicInteger()).incrementAndGet() > maxInFlight) {
            countOut(s);
            long id = r.requestId();
            Thread.ofVirtual().name("nexar-r" + rank + "-rpc-refuse").start(() -> answer(peer, new Message.RpcResponse(
                    id, RpcStatus.OVERLOADED, ErrorCode.UNAVAILABLE, "", "rank " + rank + " already runs "
                    + maxInFlight + " requests of this caller (setting rpc.max.in.flight)", EMPTY)));
            return;
        }
        Thread.ofVirtual().name("nexar-r" + rank + "-rpc-from-" + peer).start(() -> serve(s));
    }

    /** The caller gave up on a request (transport thread): interrupt its handler, send nothing. */
    void onCancel(int peer, long requestId) {
        Serving s = serving.get(new Key(peer, requestId));
        if (s != null && countOut(s)) {
            s.cancel();
        }
    }

    /** The caller failed or left: interrupt its handlers, send nothing. */
    void onPeerDown(int peer) {
        for (Serving s : serving.values()) {
            if (s.key.peer() == peer && countOut(s)) {
                s.cancel();
            }
        }
    }

    /** Interrupts every handler and refuses new requests. Idempotent. */
    void close() {
        closed = true;
        for (Serving s : serving.values()) {
            if (countOut(s)) {
                s.cancel();
            }
        }
    }

    /** Removes {@code s}; true for the one caller that did (it then owns the decision about the answer). */
    private boolean countOut(Serving s) {
        if (serving.remove(s.key, s)) {
            inFlight.computeIfAbsent(s.key.peer(), p -> new AtomicInteger()).decrementAndGet();
            return true;
        }
        return false;
    }

    private void serve(Serving s) {
        s.thread = Thread.currentThread();
        if (s.cancelled) { // cancelled before this thread was known: nobody could interrupt it
            return;
        }
        Message.RpcResponse response = run(s);
        if (!countOut(s)) {
            return; // cancelled, caller down or closing: the caller no longer waits for this answer
        }
        Thread.interrupted(); // a late interrupt meant for this request must not fail its answer
        answer(s.key.peer(), response);
    }

    /** Runs the handler and turns what it did into the response. */
    private Message.RpcResponse run(Serving s) {
        long id = s.key.requestId();
        Binding b = bindings.get(s.communicator);
        RpcHandler<MemorySegment, MemorySegment> handler = b == null ? null : b.handlers().get(s.functionId);
        int caller = b == null ? -1 : b.group().local(s.key.peer());
        if (b == null || caller < 0 || handler == null) {
            String why = b == null ? "rank " + rank + " has no communicator " + s.communicator + " (not made yet, or"
                    + " closed): no function " + s.functionId + " is registered there"
                    : caller < 0 ? "world rank " + s.key.peer() + " is not a member of communicator " + s.communicator
                    : "function " + s.functionId + " is not registered on communicator " + s.communicator + " of rank "
                    + b.group().rank();
            return new Message.RpcResponse(id, RpcStatus.UNKNOWN_FUNCTION, ErrorCode.FAILED_PRECONDITION, "", why,
                    EMPTY);
        }
        try {
            MemorySegment out = handler.handle(new Context(caller, s.functionId, s.communicator, s.deadlineNanos),
                    MemorySegment.ofArray(s.request).asReadOnly());
            if (out == null) {
                out = EMPTY;
            }
            if (out.byteSize() > maxPayloadBytes) {
                throw new IllegalArgumentException("the response of " + out.byteSize() + " bytes exceeds the largest"
                        + " RPC payload of " + maxPayloadBytes + " bytes (setting max.frame.size)");
            }
            return new Message.RpcResponse(id, RpcStatus.OK, null, "", "", out);
        } catch (Throwable t) { // whatever the handler throws is the caller's answer, never lost here
            return new Message.RpcResponse(id, RpcStatus.FAILED, codeOf(t), Texts.fit(t.getClass().getName()),
                    Texts.fit(t.getMessage() == null ? "" : t.getMessage()), EMPTY);
        }
    }

    /** Sends an answer; if the caller is gone or this process closes, there is nobody to tell. */
    private void answer(int peer, Message.RpcResponse response) {
        try {
            transport.send(peer, Lane.RPC, response, Deadline.after(answerTimeout),
                    ErrorContext.of(Operation.RPC).withPeer(peer));
        } catch (NexarException e) {
            // The caller failed, left or stopped reading: it ends the call by its own means (failure detection,
            // timeout), so the answer has nowhere to go.
        }
    }

    /** The error code the caller sees for what a handler threw. */
    static ErrorCode codeOf(Throwable t) {
        return switch (t) {
            case NexarException n -> n.code();
            case IllegalArgumentException _ -> ErrorCode.INVALID_ARGUMENT;
            case IllegalStateException _, UnsupportedOperationException _ -> ErrorCode.FAILED_PRECONDITION;
            case InterruptedException _ -> ErrorCode.CANCELLED;
            default -> ErrorCode.ABORTED;
        };
    }

    /** The number of requests running (for tests and diagnostics). */
    int size() {
        return serving.size();
    }

    /** Texts that fit a response's text fields. */
    static final class Texts {
        private Texts() {
        }

        /** {@code s} cut to at most MAX_TEXT_BYTES of UTF-8 at a code point boundary, unpaired surrogates as '?'. */
        static String fit(String s) {
            var sb = new StringBuilder();
            int bytes = 0;
            for (int i = 0; i < s.length(); ) {
                int cp = s.codePointAt(i);
                i += Character.charCount(cp);
                if (Character.isSurrogate((char) cp) && cp <= 0xFFFF) {
                    cp = '?';
                }
                int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                if (bytes + n > WireFormat.MAX_TEXT_BYTES) {
                    break;
                }
                bytes += n;
                sb.appendCodePoint(cp);
            }
            return sb.toString();
        }
    }
}
