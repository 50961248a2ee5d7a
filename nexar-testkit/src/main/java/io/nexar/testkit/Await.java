package io.nexar.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits of tests that fail loudly: a wait for a condition that does not hold by its deadline throws an
 * {@link AssertionError} saying what it waited for and how long, instead of falling through to an assertion that then
 * fails for a reason nobody can see. The condition is polled (the thread yields between polls), never slept on.
 *
 * <pre>{@code
 * Await.until(() -> lane.queuedBytes() > 0, Duration.ofSeconds(5), "the sender queues bytes on its lane");
 * }</pre>
 */
public final class Await {
    private Await() {
    }

    /**
     * Polls {@code condition} until it holds.
     *
     * @param condition what to wait for; polled on the calling thread, so it may have effects (a retried delivery)
     * @param timeout how long to wait at most
     * @param description what the condition means, for the failure message ("the receiver sleeps")
     * @throws AssertionError if {@code condition} does not hold within {@code timeout}, naming {@code description}
     * @throws IllegalArgumentException if {@code timeout} is negative
     */
    public static void until(BooleanSupplier condition, Duration timeout, String description) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout " + timeout + " is negative");
        }
        long start = System.nanoTime();
        long limit = timeout.toNanos();
        for (int polls = 0; !condition.getAsBoolean(); polls++) {
            if (System.nanoTime() - start > limit) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting until " + description
                        + " (" + polls + " polls)");
            }
            Thread.yield(); // the thread that makes the condition true may need this core
        }
    }

    /**
     * Waits until {@code thread} is waiting or timed-waiting (parked on a lock, a condition or a {@code LockSupport}
     * park): a test's way to know that another thread reached its wait.
     *
     * @param thread the thread to watch
     * @param timeout how long to wait at most
     * @param description what the thread is waiting for, for the failure message ("the receive is posted")
     * @throws AssertionError if the thread does not wait within {@code timeout}, or ends first; names
     *         {@code description}
     */
    public static void untilWaiting(Thread thread, Duration timeout, String description) {
        until(() -> switch (thread.getState()) {
            case WAITING, TIMED_WAITING -> true;
            case TERMINATED -> throw new AssertionError(thread.getName() + " ended instead of waiting until "
                    + description);
            default -> false;
        }, timeout, description + " (" + thread.getName() + " waiting)");
    }
}
