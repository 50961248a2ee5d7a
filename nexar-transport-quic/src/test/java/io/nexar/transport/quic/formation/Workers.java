package io.nexar.transport.quic.formation;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/** Starts workers on virtual threads and collects their enrolments. */
final class Workers {

    static final Duration DEADLINE = Duration.ofSeconds(20);

    private Workers() {
    }

    /** Starts one worker advertising {@code host:port} for QUIC and {@code host:port+1} for bulk. */
    static CompletableFuture<Enrolment> start(String joinString, int requestedRank, String host, int port) {
        var result = new CompletableFuture<Enrolment>();
        Thread.ofVirtual().name("test-worker-" + port).start(() -> {
            try {
                result.complete(WorkerEnrolment.join(joinString, requestedRank, new InetSocketAddress(host, port),
                        new InetSocketAddress(host, port + 1), DEADLINE));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    /** Waits for every worker; rethrows the first failure. */
    static List<Enrolment> all(List<CompletableFuture<Enrolment>> workers) throws Exception {
        var out = new ArrayList<Enrolment>();
        for (var w : workers) {
            out.add(w.get(25, TimeUnit.SECONDS));
        }
        return out;
    }

    /** The failure of a worker that must fail. */
    static Throwable failure(CompletableFuture<Enrolment> worker) {
        try {
            worker.orTimeout(25, TimeUnit.SECONDS).join();
        } catch (CompletionException e) {
            return e.getCause();
        }
        throw new AssertionError("the worker joined but should have failed");
    }
}
