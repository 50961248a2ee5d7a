package io.nexar.internal.transport;

import io.nexar.ErrorContext;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.util.Deadline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The notices a {@link RelayTransport} exchanges besides the frames it relays: PEER_DOWN reports (a rank that learns of
 * a failure tells its neighbours, {@link FailureSpread}, so the ranks that are not neighbours of the failed one hear
 * of it) and the QUIESCE frames of
 * its {@link CloseTree} (a closing rank keeps relaying until every rank closed). Stateless: the state is the relay's
 * (its routing table, close tree and closed flag), changed under the relay's monitor where it was before.
 */
final class RelayNotices {
    private static final Logger LOG = LoggerFactory.getLogger(RelayTransport.class);

    /** What the down reason of a rank this rank found cut off says ({@link #reportCutOff}). */
    static final String CUT_OFF = "is cut off from world rank";

    private RelayNotices() {
    }

    /**
     * A rank went down (reported by the router): routes avoid it. If this is news (this rank saw it on its own link,
     * say), the neighbours are told ({@link FailureSpread#tell}, on a virtual thread of its own, since this runs on a
     * transport thread); the ranks that are not its neighbours would never hear of it otherwise. The ranks its loss
     * cuts off are reported by the caller ({@link RelayTransport#reportCutOff}) once the rank itself was.
     *
     * @return true if it was news
     */
    static boolean onPeerDown(RelayTransport t, int peer, String why, Throwable cause) {
        if (peer < 0 || peer >= t.table.graph().worldSize() || peer == t.rank()) {
            return false;
        }
        // not told when the peer declared this rank failed: the peer is alive, this rank is the one excluded (the
        // close tree's parent going down does not stop it either: a failed world still needs to hear of it)
        // this rank's own finding that no route reaches the peer (reportCutOff, which marked it already) is no failure
        boolean failed = !(cause instanceof DeclaredFailed) && !isCutOff(why);
        boolean tell = failed && !t.closed && !t.closeTree.everyRankClosed();
        if (tell) {
            // known failed before the routes mark it dead: a rebuild that finds it dead then keeps it dead (a rank
            // marked dead but not known failed is taken for one that was only cut off, and routed through again)
            t.failures.learned(peer, why, -1);
        }
        boolean news;
        synchronized (t) {
            news = !t.table.isDead(peer);
            if (news || failed) { // not a cut-off again: the routes of a rebuild under way would keep it
                t.markDead(peer);
            }
        }
        t.closeTree.onPeerDown(peer);
        if (news && tell) {
            t.failures.tellLater(peer, -1);
        }
        return news;
    }

    /** Whether a down reason is this rank's finding that the rank is cut off ({@link #reportCutOff}). */
    static boolean isCutOff(String why) {
        return why != null && why.contains(CUT_OFF);
    }

    /**
     * After a rank went down: the live ranks that no route reaches any more (every path to them passes a dead rank;
     * recovery bridges a hole only between ranks that still reach each other) are down for this rank too, and reported so to the router, naming the dead ranks
     * that cut them off, so that operations waiting for them fail and recovery excludes them (a rank cut off alone
     * is on the minority side of a partition). Not spread to the neighbours: each rank that learns of the same
     * failures finds the same cut. If the failure that cut them off was a normal close, so is their loss.
     *
     * @param t the relay
     * @param why what completes "rank N ..." for the failure that was just learnt
     */
    static void reportCutOff(RelayTransport t, String why) {
        if (t.closed) {
            return;
        }
        int[] lost;
        int[] dead;
        synchronized (t) {
            var routes = t.table;
            var next = t.pending; // routes being set up (a growth, or a recovery's new links): cut off in both only
            lost = routes.cutOff();
            if (next != null) {
                int[] cutToo = next.cutOff();
                lost = java.util.Arrays.stream(lost).filter(r -> r >= next.graph().worldSize()
                        || java.util.Arrays.binarySearch(cutToo, r) >= 0).toArray();
            }
            dead = routes.deadRanks();
            for (int r : lost) {
                t.markDead(r);
                t.bridges.cutOff(r);
            }
        }
        if (lost.length == 0) {
            return;
        }
        String detail = CUT_OFF + " " + t.rank() + ": every path of topology="
                + t.table.graph().topology() + " to it passes a failed or departed rank (world ranks "
                + java.util.Arrays.toString(dead) + "; recovery bridges a hole only between ranks that still reach each other)";
        String reason = io.nexar.internal.protocol.GoodbyeReason.isPoliteLeave(why) ? "left (" + detail + ")"
                : "failed (" + detail + ")";
        LOG.atLevel(reason.startsWith("left") ? org.slf4j.event.Level.DEBUG : org.slf4j.event.Level.WARN)
                .log("rank {}: world ranks {} {}", t.rank(), java.util.Arrays.toString(lost), detail);
        for (int r : lost) {
            t.router.onPeerDown(r, reason, null);
        }
    }

    /**
     * A rank says {@code report.rank()} failed: fail what waits for that rank here and route around it; the first
     * time, pass it on to this rank's other live neighbours ({@link FailureSpread}).
     *
     * @throws ProtocolException if the rank is outside the world
     */
    static Delivery onPeerDownReported(RelayTransport t, int from, Message.PeerDown report) {
        int down = report.rank();
        if (down >= t.worldSize()) {
            throw t.violation(from, "reported rank " + down + " down, outside the world of " + t.worldSize());
        }
        if (down == t.rank() || down == from) {
            return Delivery.ACCEPTED; // about this rank itself, or a rank reporting itself: nothing to act on
        }
        String why = report.detail() + " (reported by world rank " + from + ")";
        t.failures.learned(down, why, from); // before the failure reaches the program: it tells the neighbours first
        boolean news;
        synchronized (t) {
            news = !t.table.isDead(down);
            t.markDead(down);
        }
        if (news) {
            t.router.onPeerDown(down, why, null);
            if (!t.closed && !t.closeTree.everyRankClosed()) {
                t.failures.tellLater(down, from); // pass it on: the report floods the neighbour graph
            }
            reportCutOff(t, why);
        }
        return Delivery.ACCEPTED;
    }

    /** {@link RelayTransport#quiesce}: waits in the close tree, logs how it ended; true if every rank closed. */
    static boolean quiesce(RelayTransport t, Deadline deadline) {
        CloseTree.Outcome outcome;
        try {
            outcome = t.closeTree.await((neighbour, release) -> sendQuiesce(t, neighbour, release),
                    deadline.deadlineNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("rank {} was interrupted while it waited for the other ranks to close; it stops relaying for"
                    + " them now", t.rank());
            return false;
        }
        switch (outcome) {
            case RELEASED -> LOG.debug("rank {}: every rank closed; it stops relaying", t.rank());
            case PARENT_DOWN -> LOG.warn("rank {} stops relaying before every rank closed: rank {}, its link towards"
                    + " rank 0 in the close tree, went down", t.rank(), t.closeTree.parent());
            case TIMED_OUT -> LOG.warn("rank {} stops relaying before every rank closed: {} passed while it waited for"
                    + " {}", t.rank(), io.nexar.internal.config.Units.formatRounded(deadline.timeout()),
                    t.closeTree.openChildren().isEmpty() ? "rank " + t.closeTree.parent() + " to release it"
                            : "ranks " + t.closeTree.openChildren() + " (or ranks behind them) to close");
        }
        return outcome == CloseTree.Outcome.RELEASED;
    }

    private static boolean sendQuiesce(RelayTransport t, int neighbour, boolean release) {
        try {
            t.forwarder.direct(neighbour, Lane.CONTROL, new Message.Quiesce(release), Deadline.after(t.forwardTimeout),
                    () -> new ErrorContext(io.nexar.Operation.CLOSE, t.rank(), t.worldSize(), -1, -1, -1, neighbour));
            return true;
        } catch (RuntimeException e) {
            LOG.debug("rank {} could not send QUIESCE ({}) to rank {}: {}", t.rank(), release ? "release" : "closed",
                    neighbour, e.toString());
            return false;
        }
    }

    /**
     * {@link RelayTransport#onQuiesce}.
     *
     * @throws ProtocolException if {@code from} is not this rank's child (closed) or parent (release) in the tree
     */
    static Delivery onQuiesce(RelayTransport t, int from, Message.Quiesce q) {
        boolean fits = q.release() ? t.closeTree.onRelease(from) : t.closeTree.onClosed(from);
        if (!fits) {
            throw t.violation(from, "sent QUIESCE (" + (q.release() ? "release" : "closed") + ") but is not rank "
                    + t.rank() + "'s " + (q.release() ? "parent" : "child") + " in the close tree of "
                    + t.table.graph().topology());
        }
        LOG.debug("rank {} got QUIESCE ({}) from rank {}", t.rank(), q.release() ? "release" : "closed", from);
        return Delivery.ACCEPTED;
    }
}
