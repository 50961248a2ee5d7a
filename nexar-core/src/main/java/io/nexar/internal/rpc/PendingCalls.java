package io.nexar.internal.rpc;

import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.NexarException;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.RpcException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.RpcStatus;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.Futures;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The caller's side of RPC for one process: request ids, the calls in flight matched by id, a bound on calls in
 * flight per callee, and the deadline of each call.
 *
 * <p>Each call ends exactly once ({@link Call#end}): by its response, by a failure (peer down, closed), or by the
 * caller giving up (timeout, cancel, interrupt). The call that ends first releases its slot; a caller that gives up
 * also sends an {@link Message.RpcCancel} <em>before</em> releasing its slot, so the callee, which reads the lane in
 * order, counts the cancelled request out before a request sent through the freed slot arrives.
 *
 * <p>Timeouts fire on a single timer thread that only hands the expiry to a virtual thread (which sends the cancel);
 * responses are matched on transport threads without blocking.
 */
final class PendingCalls {
    /** How long sending a cancel may wait for room on the lane: it is a courtesy to the callee, never worth a hang. */
    private static final Duration CANCEL_SEND_TIMEOUT = Duration.ofSeconds(1);
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]).asReadOnly();

    private final AtomicLong nextId = new AtomicLong(1);
    private final ConcurrentHashMap<Long, Call> calls = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, Semaphore> slots = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor timer;
    private volatile String closed;

    PendingCalls(int rank) {
        timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = Thread.ofPlatform().daemon().name("nexar-r" + rank + "-rpc-timer").unstarted(r);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * Sends a request and returns its call, after waiting (on this thread) for a free slot to {@code worldPeer}.
     *
     * @param callee the callee as the caller names it ("rank 1" or "rank 1 (world rank 3)")
     * @throws OperationTimeoutException if no slot frees before the deadline
     * @throws OperationCancelledException if interrupted while waiting for a slot
     * @throws NexarException if the request cannot be sent (peer failed, closed)
     */
    Call start(Transport transport, int worldPeer, String callee, ErrorContext context, int communicator,
               int functionId, MemorySegment request, Deadline deadline, int maxInFlight) {
        String why = closed;
        if (why != null) {
            throw new CommunicatorClosedException(context, "failed: " + why);
        }
        Semaphore slot = slots.computeIfAbsent(worldPeer, p -> new Semaphore(maxInFlight));
        try {
            if (!slot.tryAcquire(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS)) {
                throw new OperationTimeoutException(context, deadline.timeout(), "a free slot to " + callee + ": "
                        + maxInFlight + " calls in flight (setting rpc.max.in.flight)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OperationCancelledException(context, "was interrupted while waiting for a free slot to "
                    + callee, e);
        }
        var call = new Call(transport, nextId.getAndIncrement(), worldPeer, callee, context, functionId, slot,
                deadline);
        calls.put(call.id, call);
        why = closed;
        if (why != null) { // closed meanwhile: close() may have missed this call
            call.end(null, new CommunicatorClosedException(context, "failed: " + why), false);
            throw (RuntimeException) call.failure();
        }
        long remaining = Math.max(0, deadline.remainingNanos());
        try {
            call.timeout = timer.schedule(() -> Thread.ofVirtual().name("nexar-rpc-expiry").start(call::expire),
                    remaining, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) { // closed meanwhile
            call.end(null, new CommunicatorClosedException(context, "failed: " + closed), false);
            throw (RuntimeException) call.failure();
        }
        try {
            transport.send(worldPeer, Lane.RPC, new Message.RpcRequest(communicator, call.id, functionId, remaining,
                    request), deadline, context);
        } catch (NexarException e) {
            call.end(null, e, false);
            throw e;
        }
        return call;
    }

    /** A response from {@code peer} (transport thread): ends its call, if it is still waiting. */
    void onResponse(int peer, Message.RpcResponse r) {
        Call call = calls.get(r.requestId());
        if (call == null || call.worldPeer != peer) {
            return; // the caller gave up (timeout, cancel) and the callee answered anyway: nobody waits for it
        }
        if (r.status() == RpcStatus.OK) {
            byte[] bytes = r.payload().toArray(ValueLayout.JAVA_BYTE); // the frame's memory is reused after this call
            call.end(bytes.length == 0 ? EMPTY : MemorySegment.ofArray(bytes).asReadOnly(), null, false);
        } else {
            RpcException.Reason reason = switch (r.status()) {
                case FAILED -> RpcException.Reason.HANDLER_FAILED;
                case UNKNOWN_FUNCTION -> RpcException.Reason.UNKNOWN_FUNCTION;
                case OVERLOADED -> RpcException.Reason.OVERLOADED;
                case OK -> throw new AssertionError();
            };
            call.end(null, new RpcException(call.context, reason, r.code(), call.functionId, r.remoteClass(),
                    r.detail()), false);
        }
    }

    /** Fails the calls to {@code worldPeer}: it failed or left ({@code why} completes "rank N ..."). */
    void onPeerDown(int worldPeer, String why) {
        failWhere(c -> c.worldPeer == worldPeer,
                c -> new PeerFailedException(c.context, "cannot complete: " + c.callee + " " + why));
    }

    /** Fails the calls on {@code communicator}: its members abandoned it. */
    void failCommunicator(int communicator, String why) {
        failWhere(c -> c.context.communicator() == communicator,
                c -> new PeerFailedException(c.context, "cannot complete: " + why));
    }

    /** Fails every call (recovery policy abort, or this process was excluded). */
    void abortAll(String why) {
        failWhere(c -> true, c -> new PeerFailedException(c.context, "cannot complete: " + why));
    }

    /** Fails the calls made on {@code communicator}, which this process closed. */
    void closeCommunicator(int communicator, String reason) {
        failWhere(c -> c.context.communicator() == communicator,
                c -> new CommunicatorClosedException(c.context, "failed: " + reason));
    }

    /** Fails every call and refuses new ones; stops the timer. Idempotent. */
    void close(String reason) {
        closed = reason;
        failWhere(c -> true, c -> new CommunicatorClosedException(c.context, "failed: " + reason));
        timer.shutdownNow();
    }

    /** The number of calls in flight (for tests and diagnostics). */
    int size() {
        return calls.size();
    }

    private void failWhere(Predicate<Call> which, java.util.function.Function<Call, NexarException> failure) {
        for (Call c : calls.values()) {
            if (which.test(c)) {
                c.end(null, failure.apply(c), false);
            }
        }
    }

    /** One call in flight. Thread-safe. */
    final class Call {
        final long id;
        final int worldPeer;
        final String callee;
        final ErrorContext context;
        final int functionId;
        private final Transport transport;
        private final Semaphore slot;
        private final Deadline deadline;
        private final AtomicBoolean ended = new AtomicBoolean();
        final CompletableFuture<MemorySegment> result = new CompletableFuture<>();
        volatile ScheduledFuture<?> timeout;

        Call(Transport transport, long id, int worldPeer, String callee, ErrorContext context, int functionId,
             Semaphore slot, Deadline deadline) {
            this.transport = transport;
            this.id = id;
            this.worldPeer = worldPeer;
            this.callee = callee;
            this.context = context;
            this.functionId = functionId;
            this.slot = slot;
            this.deadline = deadline;
        }

        /**
         * Ends the call unless it already ended: with {@code value}, or with {@code failure}; if {@code tellCallee},
         * first sends the callee a cancel (never on a transport thread: it may wait for room on the lane).
         *
         * @return true if this ended the call
         */
        boolean end(MemorySegment value, NexarException failure, boolean tellCallee) {
            if (!ended.compareAndSet(false, true)) {
                return false;
            }
            calls.remove(id, this);
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
            if (tellCallee) {
                try {
                    transport.send(worldPeer, Lane.RPC, new Message.RpcCancel(id),
                            Deadline.after(CANCEL_SEND_TIMEOUT), context);
                } catch (NexarException e) {
                    // The callee is gone or the lane is stuck: it will not run the handler for long either way (its
                    // own failure handling interrupts it), and this call has already failed for the caller.
                }
            }
            slot.release();
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(value);
            }
            return true;
        }

        /** The failure the call ended with (after it ended exceptionally). */
        Throwable failure() {
            try {
                result.getNow(null);
                return null;
            } catch (java.util.concurrent.CompletionException e) {
                return e.getCause();
            }
        }

        /** The deadline passed (a virtual thread): ends the call with a timeout and tells the callee. */
        void expire() {
            end(null, new OperationTimeoutException(context, deadline.timeout(), "the response of " + callee
                    + " to function " + functionId), true);
        }

        /** Gives up on the call and tells the callee. */
        boolean cancel(String why) {
            return end(null, new OperationCancelledException(context, why), true);
        }

        /** Waits for the end of the call; an interrupt cancels it. */
        MemorySegment await() {
            try {
                return result.get();
            } catch (InterruptedException e) {
                cancel("was interrupted while waiting for the response of " + callee + " to function " + functionId);
                Thread.currentThread().interrupt();
                return Futures.join(result);
            } catch (ExecutionException e) {
                throw Futures.unwrap(e);
            }
        }
    }
}
