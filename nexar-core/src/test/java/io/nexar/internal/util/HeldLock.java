package io.nexar.internal.util;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A lock held by a thread of its own until {@link #close}: what a busy deliverer or driver of another communicator
 * looks like to a test that checks that nothing else waits for it.
 */
public final class HeldLock implements AutoCloseable {
    private final CountDownLatch release = new CountDownLatch(1);
    private final Thread holder;

    private HeldLock(ReentrantLock lock) throws InterruptedException {
        var held = new CountDownLatch(1);
        holder = Thread.ofPlatform().name("held-lock").start(() -> {
            lock.lock();
            try {
                held.countDown();
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        });
        if (!held.await(5, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the holder did not get the lock within 5 s");
        }
    }

    /** Returns once another thread holds {@code lock}; it keeps it until {@link #close}. */
    public static HeldLock holding(ReentrantLock lock) throws InterruptedException {
        return new HeldLock(lock);
    }

    /** Releases the lock and waits for the holder to end. */
    @Override
    public void close() throws InterruptedException {
        release.countDown();
        holder.join();
    }
}
