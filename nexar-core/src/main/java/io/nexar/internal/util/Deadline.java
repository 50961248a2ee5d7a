package io.nexar.internal.util;

import java.time.Duration;

/**
 * One deadline per operation, computed at entry; every wait inside the operation uses {@link #remainingNanos()}.
 * Based on {@link System#nanoTime()} (monotonic).
 *
 * <p>Not a record only so that its owner may {@link #restart} it: a blocking collective reuses its communicator's last
 * operation state, and that state's deadline, instead of allocating one per call. Everyone else treats a deadline as
 * a value and keeps it no longer than the operation it bounds.
 */
public final class Deadline {
    private Duration timeout;
    private long deadlineNanos;

    /**
     * A deadline at {@code deadlineNanos}.
     *
     * @param timeout the operation's whole timeout, for messages
     * @param deadlineNanos the {@code System.nanoTime()} value at which the operation times out
     */
    public Deadline(Duration timeout, long deadlineNanos) {
        this.timeout = timeout;
        this.deadlineNanos = deadlineNanos;
    }

    /** A deadline {@code timeout} from now. */
    public static Deadline after(Duration timeout) {
        return new Deadline(timeout, at(timeout));
    }

    /**
     * Makes this the deadline {@code timeout} from now, for its owner only: the operation it bounded ended, and
     * nothing else refers to it (see the class's comment).
     *
     * @param timeout the next operation's whole timeout
     * @return this deadline
     */
    public Deadline restart(Duration timeout) {
        this.timeout = timeout;
        this.deadlineNanos = at(timeout);
        return this;
    }

    private static long at(Duration timeout) {
        long nanos = saturatedNanos(timeout);
        long now = System.nanoTime();
        long at = now + nanos;
        if (nanos > 0 && at < now) { // overflow: effectively never
            at = Long.MAX_VALUE;
        }
        return at;
    }

    /** @return the operation's whole timeout, for messages */
    public Duration timeout() {
        return timeout;
    }

    /** @return the {@code System.nanoTime()} value at which the operation times out */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** Nanoseconds left, never negative. */
    public long remainingNanos() {
        return Math.max(0, deadlineNanos - System.nanoTime());
    }

    /** True once the deadline has passed. */
    public boolean expired() {
        return remainingNanos() == 0;
    }

    @Override
    public String toString() {
        return "Deadline[timeout=" + timeout + ", deadlineNanos=" + deadlineNanos + "]";
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
