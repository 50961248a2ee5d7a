package io.nexar.internal.util;

import java.time.Duration;

/**
 * One deadline per operation, computed at entry; every wait inside the operation uses {@link #remainingNanos()}.
 * Based on {@link System#nanoTime()} (monotonic).
 *
 * @param timeout the operation's whole timeout, for messages
 * @param deadlineNanos the {@code System.nanoTime()} value at which the operation times out
 */
public record Deadline(Duration timeout, long deadlineNanos) {

    /** A deadline {@code timeout} from now. */
    public static Deadline after(Duration timeout) {
        long nanos = saturatedNanos(timeout);
        long now = System.nanoTime();
        long at = now + nanos;
        if (nanos > 0 && at < now) { // overflow: effectively never
            at = Long.MAX_VALUE;
        }
        return new Deadline(timeout, at);
    }

    /** Nanoseconds left, never negative. */
    public long remainingNanos() {
        return Math.max(0, deadlineNanos - System.nanoTime());
    }

    /** True once the deadline has passed. */
    public boolean expired() {
        return remainingNanos() == 0;
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
