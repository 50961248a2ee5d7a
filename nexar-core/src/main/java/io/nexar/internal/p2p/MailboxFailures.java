package io.nexar.internal.p2p;

import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.PeerFailedException;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundRouter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How a {@link Mailbox}'s receives fail or end other than by completing: cancelled, a peer down (or gone with a
 * goodbye), a process-wide abort, a communicator abandoned or closed, the mailbox closed; and the check that refuses
 * new receives once one of these happened.
 *
 * <p>Stateless: the mailbox owns every table these methods read and write (its pair table, its {@link Matcher}, the
 * peers down, the closed communicators, its {@link UnexpectedStore}, why it was closed or aborted), all guarded by the
 * mailbox's lock. The methods named after a public method of the mailbox take that lock; the others run under it,
 * called by the mailbox. None runs for a chunk of a message that is received: that is {@link MailboxArrivals}.
 */
final class MailboxFailures {
    private MailboxFailures() {
    }

    /**
     * A protocol violation by {@code peer}, naming the local rank and world of the mailbox's transport (once known),
     * the communicator and the peer.
     *
     * @param d the offending frame, naming the communicator, or null if it is not a data frame
     * @param what completes "failed: rank {peer} ...", for example "started message 3 at offset 8"
     */
    static ProtocolException protocol(Mailbox mb, Message.Data d, int peer, String what) {
        return new ProtocolException(InboundRouter.decoding(mb.end, d == null ? -1 : d.communicator(), -1, peer),
                "failed: rank " + peer + " " + what);
    }

    /**
     * Refuses a new receive or probe if the mailbox or {@code communicator} is closed, or every receive was aborted.
     * Under the lock.
     */
    static void refuseIfClosed(Mailbox mb, int communicator, ErrorContext context) {
        if (mb.closed) {
            throw new CommunicatorClosedException(context, "failed: " + mb.closedReason);
        }
        String gone = mb.closedComms.get(communicator);
        if (gone != null) {
            throw new CommunicatorClosedException(context, "failed: " + gone);
        }
        if (mb.abortedDetail != null) { // the communicator's own check may have run just before the abort
            throw new PeerFailedException(context, mb.abortedDetail);
        }
    }

    /** {@link Mailbox#cancel}. */
    static boolean cancel(Mailbox mb, PendingReceive r) {
        mb.lock.lock();
        try {
            if (r.result.isDone()) {
                return false;
            }
            abandon(mb, r);
            return r.result.completeExceptionally(new OperationCancelledException(r.context, "was cancelled"));
        } finally {
            mb.lock.unlock();
        }
    }

    /**
     * Detaches a receive that will not complete: unposts it, or drops the rest of the message it was bound to; then
     * stops the chunks being written into its buffer, waiting (lock released) for a piece being written. Under the
     * lock; set the receive's outcome after it.
     */
    static void abandon(Mailbox mb, PendingReceive r) {
        InboundMessage m = r.bound;
        if (m == null) {
            mb.matcher.unpost(r);
        } else {
            detach(r, m);
            if (m.complete()) {
                mb.pair(r.communicator, m.src).active.remove(m.seq);
            }
        }
        MailboxClaims.stop(mb, r); // also when another thread detached it and waits: neither returns before
    }

    /** Unbinds {@code r} from {@code m}, whose remaining bytes are dropped. Under the lock. */
    private static void detach(PendingReceive r, InboundMessage m) {
        m.boundTo = null;
        r.bound = null;
        m.discard = true;
    }

    /**
     * Ends receives bound to messages (detached from them already, so no chunk is claimed for them any more): stops
     * the chunks being written into each one's buffer, then completes it with {@code error}. Under the lock, which is
     * released while a piece being written ends: the caller must not iterate the mailbox's tables across this call.
     */
    private static void endBound(Mailbox mb, List<PendingReceive> ended,
                                 Function<PendingReceive, ? extends RuntimeException> error) {
        for (PendingReceive r : ended) {
            MailboxClaims.stop(mb, r);
            r.result.completeExceptionally(error.apply(r));
        }
    }

    /** {@link Mailbox#onPeerDown}. */
    static void peerDown(Mailbox mb, int peer, String why) {
        mb.lock.lock();
        try {
            markDown(mb, peer, why);
        } finally {
            mb.lock.unlock();
        }
    }

    /** Records {@code peer} down (the first reason wins) and fails the receives from it. Under the lock. */
    static void markDown(Mailbox mb, int peer, String why) {
        if (mb.downPeers.putIfAbsent(peer, why) != null) {
            return;
        }
        failReceives(mb, (comm, src) -> src == peer, r -> r.peerFailed(peer, why));
    }

    /** {@link Mailbox#abortAll}. */
    static void abortAll(Mailbox mb, String why) {
        mb.lock.lock();
        try {
            String detail = "cannot complete: " + why;
            mb.abortedDetail = detail;
            failReceives(mb, (comm, src) -> true, r -> new PeerFailedException(r.context, detail));
        } finally {
            mb.lock.unlock();
        }
    }

    /** {@link Mailbox#close}. */
    static void close(Mailbox mb, String reason) {
        mb.lock.lock();
        try {
            if (mb.closed) {
                return;
            }
            mb.closed = true;
            mb.closedReason = reason;
            mb.matcher.forEachPosted(r -> r.result.completeExceptionally(
                    new CommunicatorClosedException(r.context, "failed: " + reason)));
            List<PendingReceive> ended = new ArrayList<>();
            for (PairState p : mb.pairs.values()) {
                for (InboundMessage m : p.active.values()) {
                    if (m.boundTo != null) {
                        ended.add(m.boundTo);
                        detach(m.boundTo, m);
                    }
                }
            }
            mb.matcher.clear();
            mb.pairs.clear();
            mb.store.clear();
            mb.changed.signalAll();
            endBound(mb, ended, r -> new CommunicatorClosedException(r.context, "failed: " + reason));
        } finally {
            mb.lock.unlock();
        }
    }

    /** {@link Mailbox#closeCommunicator}. */
    static void closeCommunicator(Mailbox mb, int communicator, String reason) {
        mb.lock.lock();
        try {
            if (mb.closed || mb.closedComms.putIfAbsent(communicator, reason) != null) {
                return;
            }
            mb.matcher.unpostIf(r -> r.communicator == communicator, r -> r.result.completeExceptionally(
                    new CommunicatorClosedException(r.context, "failed: " + reason)));
            List<PendingReceive> ended = new ArrayList<>();
            for (var it = mb.pairs.entrySet().iterator(); it.hasNext(); ) {
                var p = it.next();
                if (p.getKey().communicator() != communicator) {
                    continue;
                }
                for (InboundMessage m : p.getValue().active.values()) {
                    if (m.boundTo != null) {
                        ended.add(m.boundTo);
                        detach(m.boundTo, m);
                    }
                    mb.store.release(m);
                }
                it.remove();
            }
            mb.matcher.dropUnmatched(communicator);
            mb.changed.signalAll();
            endBound(mb, ended, r -> new CommunicatorClosedException(r.context, "failed: " + reason));
        } finally {
            mb.lock.unlock();
        }
    }

    /** {@link Mailbox#failCommunicator}. */
    static void failCommunicator(Mailbox mb, int communicator, String why) {
        mb.lock.lock();
        try {
            failReceives(mb, (comm, src) -> comm == communicator,
                    r -> new PeerFailedException(r.context, "cannot complete: " + why));
        } finally {
            mb.lock.unlock();
        }
    }

    /** Selects receives by (communicator, world source rank). */
    @FunctionalInterface
    private interface ReceiveFilter {
        boolean test(int communicator, int src);
    }

    /**
     * Fails the pending receives that {@code sources} accepts with {@code error}: those still
     * waiting to be matched, and those bound to a message that is not complete (the rest of that message is
     * dropped, never written into the caller's buffer). Under the lock.
     */
    private static void failReceives(Mailbox mb, ReceiveFilter sources,
                                     Function<PendingReceive, ? extends RuntimeException> error) {
        // a receive from any source is not failed by one source's loss: another member (or this rank) may still send
        mb.matcher.unpostIf(r -> sources.test(r.communicator, r.worldSrc),
                r -> r.result.completeExceptionally(error.apply(r)));
        List<PendingReceive> ended = null;
        for (var p : mb.pairs.entrySet()) {
            if (!sources.test(p.getKey().communicator(), p.getKey().src())) {
                continue;
            }
            for (InboundMessage m : p.getValue().active.values()) {
                if (m.boundTo != null && !m.complete()) {
                    if (ended == null) {
                        ended = new ArrayList<>(2);
                    }
                    ended.add(m.boundTo);
                    detach(m.boundTo, m);
                }
            }
        }
        mb.changed.signalAll();
        if (ended != null) {
            endBound(mb, ended, error);
        }
    }
}
