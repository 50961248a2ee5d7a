package io.nexar.internal.transport;

import io.nexar.ErrorContext;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.util.Deadline;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a rank of a sparse topology knows of failed ranks, and how it tells its neighbours: once per failed rank, a
 * PEER_DOWN to every live neighbour, flushed to the network before the failure reaches the program (which may exit
 * at once, docs/failure-model.md "Sparse topologies"). A rank learns a failure from its own link, from a PEER_DOWN
 * (then it passes it on: the report floods the neighbour graph, each rank sending it once), or from a
 * COLLECTIVE_ABORT naming the rank whose failure caused it. Only neighbours hold a link to a rank, so a survivor that
 * is no neighbour of the failed rank hears of it only this way, and must hear it before it sees the departure of the
 * neighbour that told it, or it names that neighbour instead of the cause.
 */
final class FailureSpread {
    /** How long a failed write to a neighbour waits for that neighbour's own notice of an earlier failure. */
    static final Duration NOTICE_GRACE = Duration.ofSeconds(1);
    /**
     * How long telling the neighbours (sends and flushes) may hold up the failure it precedes: notices are best
     * effort, and a neighbour that cannot take a small control frame in this time is failing too.
     */
    static final Duration TELL_TIMEOUT = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(RelayTransport.class);
    private final RelayTransport t;
    /** Why each failed rank that this rank knows of failed (completing "rank N ..."); the first reason wins. */
    private final ConcurrentHashMap<Integer, String> known = new ConcurrentHashMap<>();
    /** The neighbours that told this rank of a failure (their notice came before their own departure). */
    private final java.util.Set<Integer> heardFrom = ConcurrentHashMap.newKeySet();
    /** One telling per failed rank; completes once its notices are flushed. */
    private final ConcurrentHashMap<Integer, CompletableFuture<Void>> told = new ConcurrentHashMap<>();

    FailureSpread(RelayTransport t) {
        this.t = t;
    }

    /**
     * This rank learned that {@code dead} failed (the first reason is kept).
     *
     * @param dead the world rank
     * @param why completes "rank N ...", for example {@code failed (reported by world rank 2)}
     * @param from the rank that told it, or -1 (its own link)
     */
    synchronized void learned(int dead, String why, int from) {
        if (dead < 0 || dead >= t.worldSize() || dead == t.rank()) {
            return;
        }
        known.putIfAbsent(dead, clip(why));
        if (from >= 0) {
            heardFrom.add(from);
        }
        notifyAll();
    }

    /** {@return true if this rank knows {@code rank} failed} */
    boolean knows(int rank) {
        return known.containsKey(rank);
    }

    /**
     * A write to neighbour {@code peer} failed: waits (at most {@link #NOTICE_GRACE}) until this rank knows why, that
     * is until {@code peer} is known down (its link reports it after its grace period) or {@code peer} told this rank
     * of a failure. A neighbour that fails because another rank failed tells its neighbours before it exits; its
     * notice and its departure race on different connections, and the notice names the cause.
     */
    synchronized void awaitReason(int peer) {
        long end = System.nanoTime() + NOTICE_GRACE.toNanos();
        try {
            while (!known.containsKey(peer) && !heardFrom.contains(peer) && !t.closed) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A COLLECTIVE_ABORT arrived from world rank {@code from} ({@link RelayTransport#onAbort}): if it names a rank
     * whose failure caused it, this rank learns that rank failed.
     */
    void onAbort(int from, Message.CollectiveAbort abort) {
        int culprit = abort.culprit();
        if (abort.reason() == io.nexar.internal.protocol.AbortReason.FAILED && culprit >= 0 && culprit != from
                && culprit < t.worldSize()) {
            learned(culprit, "failed (reported by world rank " + from + ")", from);
        }
    }

    /**
     * {@link RelayTransport#beforeFailureSurfaces}: tells the live neighbours of {@code failed}'s failure if this rank
     * knows of it, else flushes what was sent to them so far.
     */
    void beforeFailureSurfaces(int failed) {
        if (t.closed) {
            return;
        }
        if (failed >= 0 && knows(failed)) {
            tell(failed, -1);
        } else {
            flushNeighbours(Deadline.after(TELL_TIMEOUT));
        }
    }

    /** Tells the neighbours of {@code dead}'s failure on a virtual thread (the caller is a transport thread). */
    void tellLater(int dead, int except) {
        if (known.containsKey(dead) && !told.containsKey(dead) && !t.closed) {
            Thread.ofVirtual().name("nexar-peer-down-r" + t.rank() + "-p" + dead).start(() -> tell(dead, except));
        }
    }

    /**
     * Tells every live neighbour (but {@code except}) that {@code dead} failed, once per failed rank, and returns when
     * the notices left this process (or after {@link #TELL_TIMEOUT}); a later call waits for the first. Then
     * flushes what else was sent to the live neighbours (a failing operation's aborts). Does nothing if this rank
     * does not know {@code dead} failed.
     *
     * @param dead the world rank
     * @param except a rank not to tell (the one that told this rank), or -1
     */
    void tell(int dead, int except) {
        String why = known.get(dead);
        if (why == null || t.closed) {
            return;
        }
        var mine = new CompletableFuture<Void>();
        CompletableFuture<Void> first = told.putIfAbsent(dead, mine);
        Deadline deadline = Deadline.after(TELL_TIMEOUT);
        if (first == null) {
            var report = new Message.PeerDown(dead, why);
            for (int n : t.table.graph().neighbours(t.rank())) {
                if (n != dead && n != except && !t.table.isDead(n) && !known.containsKey(n)) {
                    try {
                        t.forwarder.directNoWait(n, Lane.CONTROL, report, deadline,
                                () -> new ErrorContext(io.nexar.Operation.SEND, t.rank(), t.worldSize(), -1, -1, -1, n));
                    } catch (RuntimeException e) { // down too: its other neighbours tell the rest
                        LOG.debug("rank {} could not tell neighbour {} of rank {}'s failure: {}", t.rank(), n, dead,
                                e.toString());
                    }
                }
            }
            flushNeighbours(deadline);
            mine.complete(null);
            return;
        }
        try {
            first.get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException ignored) {
            // best effort
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        flushNeighbours(deadline);
    }

    /** Waits until what was sent to each live neighbour so far left this process. */
    void flushNeighbours(Deadline deadline) {
        for (int n : t.table.graph().neighbours(t.rank())) {
            if (!t.table.isDead(n) && !known.containsKey(n)) {
                t.forwarder.flushLink(n, deadline);
            }
        }
    }

    /** {@code why} cut to what a PEER_DOWN carries. */
    static String clip(String why) {
        String text = why == null ? "failed" : why;
        int max = WireFormat.MAX_TEXT_BYTES / 4; // at most 4 UTF-8 bytes per char
        if (text.length() <= max) {
            return text;
        }
        int end = Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max;
        return text.substring(0, end);
    }
}
