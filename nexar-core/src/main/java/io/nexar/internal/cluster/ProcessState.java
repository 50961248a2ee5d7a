package io.nexar.internal.cluster;

import io.nexar.internal.collective.Group;
import io.nexar.internal.util.Deadline;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The part of the membership state that application and transport threads read: whether this process can still
 * take part at all (abort, exclusion), and under policy automatic the current world and the recovery under way.
 * One monitor guards it; waiting threads are woken on every change. Never held across I/O.
 */
final class ProcessState {
    private Group world;
    private int generation;
    private CompletableFuture<Decision> recovery;
    private String aborted;
    private int abortedPeer = -1;
    private String abortedWhy;

    ProcessState(Group world, int generation) {
        this.world = world;
        this.generation = generation;
    }

    synchronized Group world() {
        return world;
    }

    synchronized int generation() {
        return generation;
    }

    /** Why every operation of the process fails, or null. */
    synchronized String aborted() {
        return aborted;
    }

    /**
     * The failure {@link #aborted()} reports, completing "cannot ..." in {@code group}'s numbering for an operation
     * whose peer is {@code peer} there (-1 for a collective); null if not aborted.
     */
    synchronized String abortedDetail(Group group, int peer) {
        if (aborted == null) {
            return null;
        }
        int r = abortedPeer < 0 ? -1 : group.local(abortedPeer);
        if (r >= 0 && (peer == -1 || peer == r)) {
            return "cannot complete: rank " + r + (r == abortedPeer ? "" : " (world rank " + abortedPeer + ")") + " "
                    + abortedWhy;
        }
        return "cannot run: " + aborted;
    }

    /** Policy abort: world rank {@code peer} failed. Returns the text to fail everything with, or null if known. */
    synchronized String abort(int peer, String why) {
        if (aborted != null) {
            return null;
        }
        abortedPeer = peer;
        abortedWhy = why + " (recovery policy abort)";
        aborted = "world rank " + peer + " " + abortedWhy;
        notifyAll();
        return aborted;
    }

    /** This process can no longer take part ({@code reason}: excluded, no quorum); false if it already could not. */
    synchronized boolean exclude(String reason) {
        if (aborted != null) {
            return false;
        }
        aborted = reason;
        notifyAll();
        return true;
    }

    /** The recovery under way, or null. */
    synchronized CompletableFuture<Decision> recovery() {
        return recovery;
    }

    /**
     * Policy automatic: world rank {@code peer} is gone; if it belongs to the world and no recovery is under way,
     * one is now (its future completes with the decision).
     */
    synchronized void markRecovering(int peer) {
        if (aborted == null && world.local(peer) >= 0 && (recovery == null || recovery.isDone())) {
            recovery = new CompletableFuture<>();
            notifyAll();
        }
    }

    /** The future of the world's recovery that is starting: the pending one if there is one, else a new one. */
    synchronized CompletableFuture<Decision> startRecovery() {
        if (recovery == null || recovery.isDone()) {
            recovery = new CompletableFuture<>();
            notifyAll();
        }
        return recovery;
    }

    /** The world was rebuilt as {@code next}, generation {@code g}. */
    synchronized void rebuilt(Group next, int g) {
        world = next;
        generation = g;
        notifyAll();
    }

    /**
     * Waits until the world was rebuilt past generation {@code seen}, this process is out, or {@code deadline}.
     *
     * @return the generation now
     */
    int awaitRebuild(int seen, Deadline deadline) {
        while (true) {
            CompletableFuture<Decision> pending;
            synchronized (this) {
                while (generation <= seen && aborted == null && (recovery == null || recovery.isDone())) {
                    long left = deadline.remainingNanos();
                    if (left <= 0) {
                        return generation;
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return generation;
                    }
                }
                if (generation > seen || aborted != null) {
                    return generation;
                }
                pending = recovery;
            }
            try {
                pending.get(Math.max(1, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException failed) {
                return generation();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return generation();
            }
        }
    }
}
