package io.nexar.transport.quic;

import io.nexar.Communicator;
import io.nexar.Growth;
import io.nexar.NexarConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** What the tests of growth over a real seed share: running a call on every member at once, and polling grow(). */
final class GrowFixtures {
    /** grow() calls a member makes at most before a test fails (the worker's join request may be on its way). */
    static final int MAX_POLLS = 2_000;

    private GrowFixtures() {
    }

    /**
     * Joins the cluster of {@code joinString} as a worker on a virtual thread (the join waits for the others), with
     * {@code joinTimeout} to form.
     */
    static CompletableFuture<Communicator> join(String joinString, NexarConfig config, Duration joinTimeout) {
        var f = new CompletableFuture<Communicator>();
        Thread.ofVirtual().start(() -> {
            try {
                f.complete(new QuicTransportProvider().join(joinString, -1, config, joinTimeout));
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    /** Runs {@code body} on every communicator at once, each on a virtual thread; their results, in order. */
    static <T> List<T> all(List<Communicator> cs, Function<Communicator, T> body) throws Exception {
        var futures = new ArrayList<CompletableFuture<T>>();
        for (Communicator c : cs) {
            var f = new CompletableFuture<T>();
            Thread.ofVirtual().start(() -> {
                try {
                    f.complete(body.apply(c));
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            futures.add(f);
        }
        var out = new ArrayList<T>();
        for (var f : futures) {
            out.add(f.get(60, TimeUnit.SECONDS));
        }
        return out;
    }

    /** Calls grow() until it admits someone; fails after {@link #MAX_POLLS} calls. */
    static Growth growUntilAdmitted(Communicator c) {
        for (int i = 0; i < MAX_POLLS; i++) {
            Growth g = c.grow();
            if (g.grew()) {
                return g;
            }
        }
        throw new AssertionError("no worker admitted after " + MAX_POLLS + " grow() calls");
    }
}
