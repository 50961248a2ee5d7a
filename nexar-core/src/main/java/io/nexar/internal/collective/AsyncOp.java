package io.nexar.internal.collective;

import io.nexar.CollectiveHandle;
import io.nexar.NexarException;
import io.nexar.OperationCancelledException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

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

    @Override
    public void await() {
        try {
            future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof NexarException n) {
                throw n;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
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
        var e = new OperationCancelledException(op.context, "was cancelled");
        return engine.fail(op, e) == e;
    }

    @Override
    public CompletableFuture<Void> toCompletableFuture() {
        return future;
    }
}
