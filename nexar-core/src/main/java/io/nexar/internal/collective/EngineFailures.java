package io.nexar.internal.collective;

import io.nexar.CollectiveMismatchException;
import io.nexar.CollectiveMismatchException.Field;
import io.nexar.CommunicatorClosedException;
import io.nexar.NexarException;
import io.nexar.PeerFailedException;
import io.nexar.internal.collective.EarlyStore.OpKey;
import io.nexar.internal.protocol.AbortReason;
import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.Transport;

/**
 * How the {@link CollectiveEngine}'s operations fail, other than by completing: a peer down, a process-wide abort, a
 * communicator abandoned or closed, the engine closed, a failure its driver found, an abort from another rank, and a
 * mismatch found on an arriving chunk, which breaks the communicator (its later operations fail too).
 *
 * <p>Stateless: the engine owns every table these methods read and write (its communicators' {@link CommState}s with
 * their operations, each guarded by its shard's lock; the peers down, its early store and deferrals, why it was aborted
 * or closed, thread-safe on their own). The methods named after a public method of the engine publish a process-wide
 * fact first, then visit the shards, each under its lock; the others run under the lock of the shard concerned, called
 * by the engine. None runs for a chunk or a round of an operation that succeeds: the chunk path stays in the engine.
 */
final class EngineFailures {
    private EngineFailures() {
    }

    /**
     * What fails an operation being posted before it runs: its communicator refusing it (closed, broken or retired),
     * the engine's abort, a member that retired the communicator before it ({@link Retirements}), and an abort for it
     * that arrived before it was posted. Under its shard's lock.
     */
    static void failAtPost(CollectiveEngine e, OpState op, CommState cs) {
        NexarException refusal = cs.refuses(e.closedReason) ? cs.refusal(op.context(), e.closedReason)
                : null; // the context is built only for a refusal
        Group group = op.group;
        if (refusal != null) {
            op.fail(refusal, true);
        } else if (e.aborted != null) { // the communicator's own check may have run just before the abort
            CollectiveEngine.Aborted a = e.aborted;
            op.fail(new PeerFailedException(op.context().withPeer(a.peer() < 0 ? -1 : group.local(a.peer())),
                    "cannot complete: " + a.why()), true);
        }
        if (cs.retiredFrom != null && op.failure == null) {
            Retirements.failIfRetired(cs, op);
        }
        OpKey key = e.store.hasAborts() ? new OpKey(group.id(), op.seq) : null; // no abort held: no key to allocate
        Message.CollectiveAbort abort = key == null ? null : e.store.takeAbort(key);
        if (abort != null) { // as if it arrived now: op is registered, so it finds op (a RETIRED one, its shard)
            onAbort(e, cs, e.store.abortSender(key), abort);
        }
    }

    /**
     * Fails an operation being posted if one of its members is down; after a polite leave only if it still needs
     * something from that member (it may have sent its part of this operation before it left). Under its shard's lock.
     */
    static void failForPeersDown(CollectiveEngine e, OpState op) {
        if (e.down.isEmpty()) {
            return;
        }
        Group group = op.group;
        for (int r = 0; r < group.size() && op.failure == null; r++) {
            String why = e.down.get(group.world(r));
            if (why != null && (!GoodbyeReason.isPoliteLeave(why) || OpPeers.stillNeeds(op, r))) {
                op.fail(new PeerFailedException(op.context().withPeer(r), "cannot complete: rank " + r + " " + why),
                        !GoodbyeReason.isPoliteLeave(why));
            }
        }
    }

    /** {@link CollectiveEngine#onPeerDown}. */
    static void peerDown(CollectiveEngine e, int peer, String why) {
        if (e.down.putIfAbsent(peer, why) != null) { // published before the shards are visited
            return;
        }
        e.deferrals.taken(peer); // its transport drops what it kept
        var event = new io.nexar.internal.jfr.PeerFailureEvent();
        if (event.shouldCommit()) {
            event.peer = peer;
            event.reason = why;
            event.commit();
        }
        boolean polite = GoodbyeReason.isPoliteLeave(why);
        // after a polite leave the others may not need the leaver and would wait for this rank: tell them (a
        // failure is seen by every member on its own)
        e.comms.forEachLocked(cs -> cs.active.failEach(op -> {
            int r = op.group.local(peer);
            return r >= 0 && (!polite || OpPeers.stillNeeds(op, r))
                    ? new PeerFailedException(op.context().withPeer(r), "cannot complete: rank " + r + " " + why)
                    : null;
        }, !polite));
        e.store.freed();
    }

    /** {@link CollectiveEngine#abortAll}. */
    static void abortAll(CollectiveEngine e, int peer, String why) {
        e.aborted = new CollectiveEngine.Aborted(peer, why); // published before the shards are visited
        e.comms.forEachLocked(cs -> cs.active.failEach(op -> new PeerFailedException(
                op.context().withPeer(peer < 0 ? -1 : op.group.local(peer)), "cannot complete: " + why), true));
        e.store.freed();
    }

    /** {@link CollectiveEngine#closeCommunicator}. */
    static void closeCommunicator(CollectiveEngine e, int comm, String reason) {
        CommState cs = e.comms.getOrCreate(comm);
        locked(cs, () -> {
            if (cs.closed != null) {
                return;
            }
            cs.closed = reason;
            cs.active.failEach(op -> new CommunicatorClosedException(op.context(), "failed: " + reason), true);
            e.store.dropCommunicator(comm);
        });
    }

    /** {@link CollectiveEngine#close}. */
    static void close(CollectiveEngine e, String reason) {
        synchronized (e.comms) { // once; and ordered against chunks of communicators without a shard (see below)
            if (e.closedReason != null) {
                return;
            }
            e.closedReason = reason; // published before the shards are visited
        }
        e.comms.forEachLocked(cs -> cs.active.failEach(op -> new CommunicatorClosedException(op.context(),
                "failed: " + reason), true));
        synchronized (e.comms) { // after every shard: a chunk held before it saw closedReason is dropped here
            e.store.close();
        }
    }

    /** {@link CollectiveEngine#fail}: the driver failed {@code op} (a mismatch it found breaks the communicator). */
    static NexarException fail(CollectiveEngine e, OpState op, NexarException ex) {
        op.lock.lock();
        try {
            if (ex instanceof CollectiveMismatchException m && op.failure == null) {
                breakComm(e, op.group.id(), op.seq, m.field());
            }
            op.fail(ex, false);
            return op.failure;
        } finally {
            op.lock.unlock();
        }
    }

    private static void locked(CommState cs, Runnable body) {
        cs.lock.lock();
        try {
            body.run();
        } finally {
            cs.lock.unlock();
        }
    }

    /**
     * An abort from world rank {@code peer}: fails its operation, breaks the communicator of one that ended here after
     * a mismatch elsewhere, or is kept for an operation not posted yet. Under its shard's lock.
     */
    static void onAbort(CollectiveEngine e, CommState cs, int peer, Message.CollectiveAbort a) {
        if (a.reason() == AbortReason.RETIRED) {
            Retirements.onNotice(cs, peer, a);
            return;
        }
        OpState op = cs.active.get(a.communicator(), a.opSeq());
        if (op != null) {
            applyAbort(e, op, peer, a);
            return;
        }
        if (cs.closed != null) {
            return;
        }
        if (a.opSeq() < cs.nextSeq) {
            if (a.reason() == AbortReason.MISMATCH) { // an operation this rank finished did not match elsewhere
                breakComm(e, a.communicator(), a.opSeq(), Field.fromCode(a.field()));
            }
            return;
        }
        e.store.holdAbort(new OpKey(a.communicator(), a.opSeq()), peer, a, e.abortTransport);
    }

    /** Fails {@code op} as aborted by world rank {@code worldPeer}. Under its shard's lock. */
    static void applyAbort(CollectiveEngine e, OpState op, int worldPeer, Message.CollectiveAbort a) {
        if (a.reason() == AbortReason.MISMATCH) {
            breakComm(e, op.group.id(), op.seq, Field.fromCode(a.field()));
        }
        op.fail(OpPeers.abortedBy(op, op.group.local(worldPeer), a), true);
    }

    /**
     * A chunk of an operation that already ended here: if it proves a mismatch ({@link EngineReports#lateChunk}),
     * the communicator's collectives break here (its next operation fails with {@link CollectiveMismatchException})
     * and every other member is told with a MISMATCH abort, so theirs break too. Under its shard's lock.
     */
    static void lateChunk(CollectiveEngine e, CommState cs, int peer, Message.Collective c) {
        CollectiveMismatchException failure = EngineReports.lateChunk(cs, peer, c);
        if (failure == null) {
            return;
        }
        breakComm(e, c.communicator(), c.opSeq(), failure.field());
        Transport t = e.abortTransport;
        Group g = cs.group;
        long seq = c.opSeq(); // read now: transports refill c with their next chunk once this delivery returns
        if (t != null) { // never send from here (a reader thread, holding the lock): a virtual thread does
            Thread.ofVirtual().name("nexar-mismatch-abort").start(() ->
                    ScheduleExecutor.abortPeers(t, g, seq, failure.context(), failure));
        }
    }

    /** Fails {@code op}, which does not match rank {@code src}, and breaks its communicator. Under its shard's lock. */
    static void mismatch(CollectiveEngine e, OpState op, int src, Field field, String detail) {
        if (op.failure == null) {
            breakComm(e, op.group.id(), op.seq, field);
        }
        op.fail(new CollectiveMismatchException(op.context().withPeer(src), field, "does not match rank " + src + ": "
                + detail), false);
    }

    /**
     * Breaks communicator {@code comm} at operation {@code seq} ({@link CommState#markBroken}); the first time, fails
     * its later operations already posted. Under its shard's lock.
     */
    static void breakComm(CollectiveEngine e, int comm, long seq, Field field) {
        CommState cs = e.comms.get(comm); // exists: the caller holds its lock
        if (cs.markBroken(seq, field)) {
            // later operations already posted can never pair up reliably either: fail them now
            cs.active.failEach(op -> op.seq > seq ? cs.brokenError(op.context()) : null, true);
        }
    }
}
