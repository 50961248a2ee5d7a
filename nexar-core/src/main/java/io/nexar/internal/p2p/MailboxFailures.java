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
import java.util.function.IntPredicate;

/**
 * How a {@link Mailbox}'s receives fail or end other than by completing: cancelled, a peer down (or gone with a
 * goodbye), a process-wide abort, a communicator abandoned or closed, the mailbox closed; and the check that refuses
 * new receives once one of these happened.
 *
 * <p>Stateless: the mailbox owns every table these methods read and write (each communicator's {@link MailShard}, with
 * its pairs and {@link Matcher}, guarded by the shard's lock; the peers down, its {@link UnexpectedStore}, why it was
 * closed or aborted, thread-safe on their own). The methods named after a public method of the mailbox publish a
 * process-wide fact first, then visit the shards, each under its lock; the others run under the lock of the shard
 * concerned. None runs for a chunk of a message that is received: that is {@link MailboxArrivals}.
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
     * Refuses a new receive or probe if the mailbox or the shard's communicator is closed, or every receive was
     * aborted. Under the shard's lock: a receive is checked and registered in one hold of it.
     */
    static void refuseIfClosed(MailShard s, ErrorContext context) {
        Mailbox mb = s.mailbox;
        if (mb.closed) {
            throw new CommunicatorClosedException(context, "failed: " + mb.closedReason);
        }
        if (s.closed != null) {
            throw new CommunicatorClosedException(context, "failed: " + s.closed);
        }
        if (mb.abortedDetail != null) { // the communicator's own check may have run just before the abort
            throw new PeerFailedException(context, mb.abortedDetail);
        }
    }

    /** {@link Mailbox#cancel}. */
    static boolean cancel(PendingReceive r) {
        MailShard s = r.shard;
        s.lock.lock();
        try {
            if (r.result.isDone()) {
                return false;
            }
            abandon(s, r);
            return r.result.completeExceptionally(new OperationCancelledException(r.context, "was cancelled"));
        } finally {
            s.lock.unlock();
        }
    }

    /**
     * Detaches a receive that will not complete: unposts it, or drops the rest of the message it was bound to; then
     * stops the chunks being written into its buffer, waiting (lock released) for a piece being written. Under the
     * shard's lock; set the receive's outcome after it.
     */
    static void abandon(MailShard s, PendingReceive r) {
        InboundMessage m = r.bound;
        if (m == null) {
            s.matcher.unpost(r);
        } else {
            detach(r, m);
            if (m.complete()) {
                s.pair(m.src).active.remove(m.seq);
            }
        }
        MailboxClaims.stop(s, r); // also when another thread detached it and waits: neither returns before
    }

    /** Unbinds {@code r} from {@code m}, whose remaining bytes are dropped. Under the lock. */
    private static void detach(PendingReceive r, InboundMessage m) {
        m.boundTo = null;
        r.bound = null;
        m.discard = true;
    }

    /**
     * Ends receives bound to messages (detached from them already, so no chunk is claimed for them any more): stops
     * the chunks being written into each one's buffer, then completes it with {@code error}. Under the shard's lock,
     * which is released while a piece being written ends: the caller must not iterate the shard's tables across this
     * call.
     */
    private static void endBound(MailShard s, List<PendingReceive> ended,
                                 Function<PendingReceive, ? extends RuntimeException> error) {
        for (PendingReceive r : ended) {
            MailboxClaims.stop(s, r);
            r.result.completeExceptionally(error.apply(r));
        }
    }

    /**
     * {@link Mailbox#onPeerDown}, and a GOODBYE taken in order: records {@code peer} down (the first reason wins) and
     * fails the receives from it.
     */
    static void peerDown(Mailbox mb, int peer, String why) {
        if (mb.downPeers.putIfAbsent(peer, why) != null) { // published before the shards are visited
            return;
        }
        mb.shards.forEachLocked(s -> failReceives(s, src -> src == peer, r -> r.peerFailed(peer, why)));
        mb.store.freed(); // a refused sender's message may be dropped now
    }

    /** {@link Mailbox#abortAll}. */
    static void abortAll(Mailbox mb, String why) {
        String detail = "cannot complete: " + why;
        mb.abortedDetail = detail; // published before the shards are visited
        mb.shards.forEachLocked(s -> failReceives(s, src -> true, r -> new PeerFailedException(r.context,
                detail)));
        mb.store.freed(); // a refused sender's message may be dropped now
    }

    /** {@link Mailbox#close}. */
    static void close(Mailbox mb, String reason) {
        synchronized (mb.shards) { // once
            if (mb.closed) {
                return;
            }
            mb.closedReason = reason;
            mb.closed = true; // published (after its reason) before the shards are visited
        }
        mb.shards.forEachLocked(s -> {
            s.matcher.forEachPosted(r -> r.result.completeExceptionally(
                    new CommunicatorClosedException(r.context, "failed: " + reason)));
            List<PendingReceive> ended = new ArrayList<>();
            for (PairState p : s.pairs.values()) {
                for (InboundMessage m : p.active.values()) {
                    if (m.boundTo != null) {
                        ended.add(m.boundTo);
                        detach(m.boundTo, m);
                    }
                }
            }
            s.matcher.clear();
            s.pairs.clear();
            s.changed.signalAll();
            endBound(s, ended, r -> new CommunicatorClosedException(r.context, "failed: " + reason));
        });
        mb.store.clear(); // after every shard: whatever a shard counted before it saw the close is gone with it
        mb.store.freed();
    }

    /** {@link Mailbox#closeCommunicator}. */
    static void closeCommunicator(Mailbox mb, int communicator, String reason) {
        MailShard s = mb.shards.getOrCreate(communicator);
        s.lock.lock();
        try {
            if (mb.closed || s.closed != null) {
                return;
            }
            s.closed = reason;
            s.matcher.unpostIf(r -> true, r -> r.result.completeExceptionally(
                    new CommunicatorClosedException(r.context, "failed: " + reason)));
            List<PendingReceive> ended = new ArrayList<>();
            for (PairState p : s.pairs.values()) {
                for (InboundMessage m : p.active.values()) {
                    if (m.boundTo != null) {
                        ended.add(m.boundTo);
                        detach(m.boundTo, m);
                    }
                    mb.store.release(m);
                }
            }
            s.pairs.clear();
            s.matcher.dropUnmatched(communicator);
            s.changed.signalAll();
            endBound(s, ended, r -> new CommunicatorClosedException(r.context, "failed: " + reason));
        } finally {
            s.lock.unlock();
        }
        mb.store.freed();
    }

    /** {@link Mailbox#retire}: fails the pending receives and probes of {@code communicator}. */
    static void failCommunicator(Mailbox mb, int communicator, String why) {
        MailShard s = mb.shards.get(communicator);
        if (s == null) {
            return; // nothing of it was ever received or posted here
        }
        s.lock.lock();
        try {
            failReceives(s, src -> true, r -> new PeerFailedException(r.context, "cannot complete: " + why));
        } finally {
            s.lock.unlock();
        }
        mb.store.freed();
    }

    /**
     * Fails the pending receives of shard {@code s} whose world source {@code sources} accepts with {@code error}:
     * those still waiting to be matched, and those bound to a message that is not complete (the rest of that message
     * is dropped, never written into the caller's buffer). Under the shard's lock.
     */
    private static void failReceives(MailShard s, IntPredicate sources,
                                     Function<PendingReceive, ? extends RuntimeException> error) {
        // a receive from any source is not failed by one source's loss: another member (or this rank) may still send
        s.matcher.unpostIf(r -> sources.test(r.worldSrc), r -> r.result.completeExceptionally(error.apply(r)));
        List<PendingReceive> ended = null;
        for (var p : s.pairs.entrySet()) {
            if (!sources.test(p.getKey())) {
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
        s.changed.signalAll();
        if (ended != null) {
            endBound(s, ended, error);
        }
    }
}
