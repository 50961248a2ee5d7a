package io.nexar.internal.util;

import io.nexar.NexarException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Waiting for a future inside a blocking public call without letting the future's wrappers out: a caller of
 * {@code recv}, {@code await} or a recovery gets the {@link NexarException} (or the caller-mistake
 * {@link RuntimeException}) the operation failed with, never a {@link CompletionException} or an
 * {@link ExecutionException} around it.
 */
public final class Futures {
    private Futures() {
    }

    /** {@link CompletableFuture#join()}, throwing what the future failed with instead of its wrapper. */
    public static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException | CancellationException e) {
            throw unwrap(e);
        }
    }

    /**
     * What to throw for a future's failure {@code e} ({@link CompletionException}, {@link ExecutionException} or the
     * failure itself): its cause if that is a {@link RuntimeException} (a {@link NexarException} or a caller mistake);
     * an {@link Error} is thrown as it is; anything else is an internal fault, as {@link IllegalStateException}.
     */
    public static RuntimeException unwrap(Throwable e) {
        Throwable cause = e;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof Error err) {
            throw err;
        }
        if (cause instanceof RuntimeException r && !(r instanceof CompletionException)) {
            return r;
        }
        return new IllegalStateException("internal error: an operation failed with " + cause, cause);
    }
}
