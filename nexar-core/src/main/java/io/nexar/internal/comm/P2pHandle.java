package io.nexar.internal.comm;

import io.nexar.ErrorContext;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.PointToPointHandle;
import io.nexar.Status;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.p2p.P2pRecorder;
import io.nexar.internal.p2p.PendingReceive;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.Futures;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

/**
 * The handle of an {@code isend} (a future completed by the virtual thread that sends) or an {@code irecv} (a receive
 * posted in the {@link Mailbox}, awaited with its deadline and transport polling there).
 */
final class P2pHandle implements PointToPointHandle {
    /** Runs dependents of {@link #toCompletableFuture()} off the transport thread that completes a receive. */
    private static final Executor CALLBACKS = r -> Thread.ofVirtual().name("nexar-p2p-callback").start(r);

    private final CompletableFuture<Status> result;
    private final Mailbox mailbox;
    private final PendingReceive receive;
    private final ErrorContext context;
    private final Deadline deadline;
    private final UnaryOperator<PeerFailedException> onPeerFailed;
    /** Where an irecv is recorded once awaited to its end ({@link #recordedIn}), or null. */
    private P2pRecorder recorder;
    private long startNanos;

    private P2pHandle(CompletableFuture<Status> result, Mailbox mailbox, PendingReceive receive, ErrorContext context,
                      Deadline deadline, UnaryOperator<PeerFailedException> onPeerFailed) {
        this.result = result;
        this.mailbox = mailbox;
        this.receive = receive;
        this.context = context;
        this.deadline = deadline;
        this.onPeerFailed = onPeerFailed;
    }

    /** The handle of a send that {@code sent} completes (it enforces its own deadline). */
    static P2pHandle send(CompletableFuture<Status> sent, ErrorContext context, Deadline deadline) {
        return new P2pHandle(sent, null, null, context, deadline, e -> e);
    }

    /** The handle of a posted receive; a {@link PeerFailedException} goes through {@code onPeerFailed}. */
    static P2pHandle receive(Mailbox mailbox, PendingReceive r, Deadline deadline,
                             UnaryOperator<PeerFailedException> onPeerFailed) {
        return new P2pHandle(r.result(), mailbox, r, r.context(), deadline, onPeerFailed);
    }

    /**
     * Makes this receive's end recorded in {@code r} (an irecv: a blocking recv records itself), when an await sees
     * it end.
     */
    P2pHandle recordedIn(P2pRecorder r, long started) {
        recorder = r;
        startNanos = started;
        return this;
    }

    @Override
    public Status await() {
        Status st = null;
        RuntimeException failure = null;
        try {
            st = receive != null ? mailbox.await(receive, deadline, null) : Futures.join(result);
            return st;
        } catch (PeerFailedException e) {
            failure = onPeerFailed.apply(e);
            throw failure;
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            recordEnd(st, failure);
        }
    }

    /** Records the end of an irecv once, if it ended (a wait that gave up early is not its end). */
    private void recordEnd(Status st, RuntimeException failure) {
        P2pRecorder r = recorder;
        if (r == null || !result.isDone()) {
            return;
        }
        recorder = null;
        r.record(P2pRecorder.Kind.IRECV, context.communicator(), st != null ? st.source() : context.peer(),
                st != null ? st.tag() : context.tag(), st != null ? st.byteSize() : -1, startNanos, System.nanoTime(),
                failure);
    }

    @Override
    public Status await(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, not " + timeout);
        }
        var limit = Deadline.after(timeout);
        Status st = null;
        RuntimeException failure = null;
        try {
            if (receive != null) {
                st = mailbox.await(receive, deadline, limit);
                return st;
            }
            return result.get(Math.max(0, limit.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (PeerFailedException e) {
            failure = onPeerFailed.apply(e);
            throw failure;
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } catch (TimeoutException e) {
            throw new OperationTimeoutException(context, timeout, "rank " + context.peer()
                    + " (the wait ended; the send is still in progress)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.nexar.OperationCancelledException(context, "the wait was interrupted (the send goes on)");
        } catch (ExecutionException e) {
            throw Futures.unwrap(e);
        } finally {
            recordEnd(st, failure);
        }
    }

    @Override
    public boolean isDone() {
        if (receive != null) {
            mailbox.expire(receive, deadline);
        }
        return result.isDone();
    }

    @Override
    public boolean cancel() {
        return receive != null && mailbox.cancel(receive);
    }

    @Override
    public CompletableFuture<Status> toCompletableFuture() {
        if (receive != null && !result.isDone()) { // nobody may await: fail it at its deadline all the same
            CompletableFuture.delayedExecutor(Math.max(0, deadline.remainingNanos()) + 1, TimeUnit.NANOSECONDS)
                    .execute(() -> mailbox.expire(receive, deadline));
        }
        var f = new CompletableFuture<Status>();
        result.whenCompleteAsync((status, e) -> {
            if (e == null) {
                f.complete(status);
                return;
            }
            RuntimeException cause = Futures.unwrap(e);
            f.completeExceptionally(cause instanceof PeerFailedException p ? onPeerFailed.apply(p) : cause);
        }, CALLBACKS);
        return f;
    }
}
