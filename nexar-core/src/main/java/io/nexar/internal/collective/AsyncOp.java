package io.nexar.internal.collective;

import io.nexar.CollectiveHandle;
import io.nexar.OperationCancelledException;
import io.nexar.internal.util.Futures;
import java.util.concurrent.CompletableFuture;

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
        Futures.join(future);
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

    @Override
    public CompletableFuture<Void> toCompletableFuture() {
        return future;
    }
}
