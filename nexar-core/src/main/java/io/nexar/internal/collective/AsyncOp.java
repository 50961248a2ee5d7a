package io.nexar.internal.collective;

import io.nexar.CollectiveHandle;
import io.nexar.OperationCancelledException;
import io.nexar.internal.util.Futures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** The {@link CollectiveHandle} of an operation driven by its own virtual thread. */
final class AsyncOp implements CollectiveHandle {
    private final CollectiveEngine engine;
    private final OpState op;
    private final CompletableFuture<Void> future = new CompletableFuture<>();

    AsyncOp(CollectiveEngine engine, OpState op) {
        this.engine = engine;
        this.op = op;
    }

    void complete(Throwable failure) {
        if (failure == null) {
            future.complete(null);
        } else {
            future.completeExceptionally(failure);
        }
    }

    /**
     * Waits for the end; an interrupt of the waiting thread cancels the operation (as {@link #cancel}), waits for it
     * to end (its buffers are then free) and throws its failure, the thread's interrupt status kept.
     */
    @Override
    public void await() {
        try {
            future.get();
        } catch (InterruptedException e) {
            var cancelled = new OperationCancelledException(op.context(), "was cancelled: the thread awaiting it was"
                    + " interrupted");
            engine.fail(op, cancelled);
            try {
                Futures.join(future); // the driver ends it at once: throws the cancellation (or an earlier failure)
            } finally {
                Thread.currentThread().interrupt();
            }
        } catch (ExecutionException e) {
            throw Futures.unwrap(e);
        }
    }

    @Override
    public boolean isDone() {
        return future.isDone();
    }

    @Override
    public boolean cancel() {
        if (future.isDone()) {
            return false;
        }
        var e = new OperationCancelledException(op.context(), "was cancelled");
        return engine.fail(op, e) == e;
    }

    /**
     * A future of its own per call, completed as the operation ends; cancelling it cancels the operation (as
     * {@link #cancel}). {@link #await} never waits on a future the caller can complete or cancel.
     */
    @Override
    public CompletableFuture<Void> toCompletableFuture() {
        var f = new CompletableFuture<Void>();
        future.whenComplete((v, e) -> {
            if (e == null) {
                f.complete(null);
            } else {
                f.completeExceptionally(e);
            }
        });
        f.whenComplete((v, e) -> {
            if (f.isCancelled()) {
                cancel();
            }
        });
        return f;
    }
}
