package io.nexar.testkit;

import io.nexar.Communicator;
import io.nexar.internal.config.Units;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;

/**
 * Runs one body per rank, each on its own virtual thread, and joins them under a deadline: the engine behind
 * {@link TestCluster#onEachRank} for every transport's test cluster.
 *
 * <p>When a body throws, {@code onFailure} is called at once with its rank (mark that rank failed so peers fail fast
 * instead of timing out); the run then throws a {@link RankFailedException} whose cause is the first failure in
 * time, later ones attached as suppressed. When the deadline passes, the exception lists the stacks of the ranks
 * still running, which are then interrupted. In both cases {@code closeAll} runs before the exception is thrown.
 */
public final class RankRunner {
    private RankRunner() {
    }

    /**
     * Runs {@code body} on every rank at once and returns the results by rank.
     *
     * @param <T> the type of a body's result
     * @param name the cluster's name, for messages (for example {@code LocalCluster})
     * @param threadPrefix thread names are this plus the rank
     * @param communicators the world communicator of each rank
     * @param timeout how long the bodies may run in total
     * @param body the code each rank runs with its world communicator
     * @param onFailure called on the failing rank's thread with its rank and error
     * @param closeAll closes the cluster after a failure or timeout
     * @return the body's results by rank
     * @throws RankFailedException if any body threw (cause: the first failure) or the run timed out
     */
    public static <T> Map<Integer, T> run(String name, String threadPrefix, List<Communicator> communicators,
                                          Duration timeout, RankBody<T> body, BiConsumer<Integer, Throwable> onFailure,
                                          Runnable closeAll) {
        int n = communicators.size();
        var results = new AtomicReferenceArray<T>(n);
        var failures = new ConcurrentLinkedQueue<Failure>();
        var done = new CountDownLatch(n);
        var threads = new Thread[n];
        for (int rank = 0; rank < n; rank++) {
            final int r = rank;
            threads[rank] = Thread.ofVirtual().name(threadPrefix + rank).unstarted(() -> {
                try {
                    results.set(r, body.run(communicators.get(r)));
                } catch (Throwable t) {
                    failures.add(new Failure(r, t));
                    onFailure.accept(r, t);
                } finally {
                    done.countDown();
                }
            });
        }
        for (Thread t : threads) {
            t.start();
        }
        boolean finished;
        try {
            finished = done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            finished = false;
        }
        if (!finished) {
            var e = timedOut(name, timeout, threads, failures);
            closeAll.run();
            throw e;
        }
        if (!failures.isEmpty()) {
            Failure first = failures.peek();
            var e = new RankFailedException(first.rank, "rank " + first.rank + " of " + n + " failed: "
                    + first.error, first.error);
            failures.stream().skip(1).forEach(f -> e.addSuppressed(
                    new RankFailedException(f.rank, "then rank " + f.rank + " failed: " + f.error, f.error)));
            closeAll.run();
            throw e;
        }
        var out = new TreeMap<Integer, T>();
        for (int rank = 0; rank < n; rank++) {
            out.put(rank, results.get(rank));
        }
        return out;
    }

    private static RankFailedException timedOut(String name, Duration timeout, Thread[] threads,
                                                 ConcurrentLinkedQueue<Failure> failures) {
        var sb = new StringBuilder(name).append(" run did not finish within ").append(Units.formatRounded(timeout))
                .append("; still running:");
        for (int rank = 0; rank < threads.length; rank++) {
            if (threads[rank].isAlive()) {
                sb.append("\n  rank ").append(rank).append(" at ");
                Arrays.stream(threads[rank].getStackTrace()).limit(12).forEach(f -> sb.append("\n      ").append(f));
            }
        }
        Failure first = failures.peek();
        var e = new RankFailedException(first == null ? -1 : first.rank, sb.toString(),
                first == null ? null : first.error);
        for (Thread t : threads) {
            t.interrupt();
        }
        return e;
    }

    private record Failure(int rank, Throwable error) {
    }
}
