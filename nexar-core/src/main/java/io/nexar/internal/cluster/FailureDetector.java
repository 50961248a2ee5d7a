package io.nexar.internal.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Decides which peers are dead from what this process has <em>received</em>, on a monotonic clock: a peer is
 * suspected once nothing (a heartbeat or any other message) has arrived from it for {@code timeout}. Sending
 * successfully proves nothing about the peer (inventory W17), so only receipt counts.
 *
 * <p>Heartbeats: every peer gets one every {@code interval}, each on its own schedule ({@link #heartbeatsDue}), so
 * a slow peer never delays the others.
 *
 * <p>Pure logic, no threads: the owner (the transport's control lane) calls {@link #onReceived} for every inbound
 * message, and calls {@link #heartbeatsDue} and {@link #newlySuspected} when {@link #nextWakeNanos} is reached.
 * Not thread-safe: one owner, as DESIGN.md section 3 prescribes for membership state. Time comes from an injected
 * clock, so tests advance it by hand.
 */
public final class FailureDetector {
    private final int self;
    private final long intervalNanos;
    private final long timeoutNanos;
    private final LongSupplier clock;
    private final long[] lastHeard;
    private final long[] lastSent;
    private final boolean[] suspected;

    /**
     * @param self the local rank (never monitored)
     * @param worldSize the number of ranks
     * @param interval time between heartbeats to one peer
     * @param timeout silence after which a peer is suspected; must exceed {@code interval}
     * @param clock monotonic nanoseconds, {@link System#nanoTime} in production
     * @throws IllegalArgumentException if timeout is not greater than interval, or either is not positive
     */
    public FailureDetector(int self, int worldSize, Duration interval, Duration timeout, LongSupplier clock) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("heartbeat interval " + interval + " is not positive");
        }
        if (timeout.compareTo(interval) <= 0) {
            throw new IllegalArgumentException("heartbeat timeout " + timeout + " must be greater than the heartbeat"
                    + " interval " + interval);
        }
        this.self = self;
        this.intervalNanos = interval.toNanos();
        this.timeoutNanos = timeout.toNanos();
        this.clock = clock;
        long now = clock.getAsLong();
        this.lastHeard = new long[worldSize];
        this.lastSent = new long[worldSize];
        this.suspected = new boolean[worldSize];
        Arrays.fill(lastHeard, now);
        Arrays.fill(lastSent, now - intervalNanos); // the first heartbeats are due at once
    }

    /** Something arrived from {@code peer}: it is alive now. A suspected peer stays suspected (no revival). */
    public void onReceived(int peer) {
        lastHeard[peer] = clock.getAsLong();
    }

    /** The peers a heartbeat should be sent to now; marks them as sent. */
    public List<Integer> heartbeatsDue() {
        long now = clock.getAsLong();
        var due = new ArrayList<Integer>();
        for (int peer = 0; peer < lastSent.length; peer++) {
            if (peer != self && !suspected[peer] && now - lastSent[peer] >= intervalNanos) {
                lastSent[peer] = now;
                due.add(peer);
            }
        }
        return due;
    }

    /** Peers silent for longer than the timeout that were not reported before; each is reported once. */
    public List<Integer> newlySuspected() {
        long now = clock.getAsLong();
        var dead = new ArrayList<Integer>();
        for (int peer = 0; peer < lastHeard.length; peer++) {
            if (peer != self && !suspected[peer] && now - lastHeard[peer] > timeoutNanos) {
                suspected[peer] = true;
                dead.add(peer);
            }
        }
        return dead;
    }

    /** How long {@code peer} has been silent, in nanoseconds (for error messages). */
    public long silentNanos(int peer) {
        return clock.getAsLong() - lastHeard[peer];
    }

    /** Whether {@code peer} was reported by {@link #newlySuspected}. */
    public boolean isSuspected(int peer) {
        return suspected[peer];
    }

    /** The clock value at which a heartbeat or a timeout next falls due. */
    public long nextWakeNanos() {
        long next = Long.MAX_VALUE;
        for (int peer = 0; peer < lastHeard.length; peer++) {
            if (peer != self && !suspected[peer]) {
                next = Math.min(next, Math.min(lastSent[peer] + intervalNanos, lastHeard[peer] + timeoutNanos + 1));
            }
        }
        return next;
    }
}
