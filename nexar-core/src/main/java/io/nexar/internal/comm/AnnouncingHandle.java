package io.nexar.internal.comm;

import io.nexar.CollectiveHandle;
import io.nexar.PeerFailedException;
import java.util.concurrent.CompletableFuture;

/**
 * The handle of an asynchronous collective of a communicator that follows the rebuilt world: a failure by a lost peer
 * that {@link #await()} throws announces the automatic rebuild it caused (see {@link Recovery#async}).
 */
final class AnnouncingHandle implements CollectiveHandle {
    private final CollectiveHandle handle;
    private final Recovery recovery;
    private final int generation;

    AnnouncingHandle(CollectiveHandle handle, Recovery recovery, int generation) {
        this.handle = handle;
        this.recovery = recovery;
        this.generation = generation;
    }

    @Override
    public void await() {
        try {
            handle.await();
        } catch (PeerFailedException e) {
            throw recovery.afterFailure(e, generation);
        }
    }

    @Override
    public boolean isDone() {
        return handle.isDone();
    }

    @Override
    public boolean cancel() {
        return handle.cancel();
    }

    @Override
    public CompletableFuture<Void> toCompletableFuture() {
        return handle.toCompletableFuture();
    }
}
