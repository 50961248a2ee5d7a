package io.nexar.internal.util;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where senders refused for lack of room in a bounded store wait until room may have been freed, without a lost
 * wake-up and without holding any other lock: a sender reads the {@link #epoch} before it tries to deliver and, if it
 * was refused, {@link #await}s only if no {@link #freed} happened since. Every change that may let a refused message
 * in (bytes released, a receive or an operation posted, a failure) calls {@link #freed}.
 *
 * <p>Thread-safe; its lock is the innermost of any receive side (held only inside these methods).
 */
public final class RoomSignal {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long epoch;

    /** The number of {@link #freed} calls so far: read before an attempt to deliver, passed to {@link #await}. */
    public long epoch() {
        lock.lock();
        try {
            return epoch;
        } finally {
            lock.unlock();
        }
    }

    /** Room may have been freed: every waiting sender tries again. */
    public void freed() {
        lock.lock();
        try {
            epoch++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits at most {@code nanos} for a {@link #freed} after epoch {@code seen} (returns at once if there was one).
     *
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    public void await(long seen, long nanos) throws InterruptedException {
        lock.lock();
        try {
            if (epoch == seen && nanos > 0) {
                changed.awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }
}
