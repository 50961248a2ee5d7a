package io.nexar.internal.util;

import java.util.concurrent.atomic.AtomicLong;
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
    private final AtomicLong epoch = new AtomicLong();
    /** Senders in {@link #await}; {@link #freed} takes the lock only when there are some. */
    private volatile int waiting;

    /** The number of {@link #freed} calls so far: read before an attempt to deliver, passed to {@link #await}. */
    public long epoch() {
        return epoch.get();
    }

    /**
     * Room may have been freed: every waiting sender tries again. Costs no lock when nobody waits (every receive post
     * calls this): a sender counts itself waiting before it reads the epoch and this method counts the epoch
     * before it reads that count, so at least one of the two sees the other.
     */
    public void freed() {
        epoch.incrementAndGet();
        if (waiting > 0) {
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
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
            waiting++; // under the lock: only waiters write it
            if (epoch.get() == seen && nanos > 0) {
                changed.awaitNanos(nanos);
            }
        } finally {
            waiting--;
            lock.unlock();
        }
    }
}
