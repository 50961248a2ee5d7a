package io.nexar.internal.collective;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.transport.Progress;
import java.util.List;

/**
 * Where a {@link CollectiveEngine}'s arriving chunk goes: into its open round's slot, a later round's slot ahead of
 * time, its operation's later list, the early store, or back to its transport's buffer for a while.
 *
 * <p>Stateless: every method works on the engine's tables and runs under its lock ({@link #deliverWaiting} takes it).
 */
final class EngineChunks {
    private EngineChunks() {
    }

    /** Handles chunk {@code c} from world rank {@code peer}. Under the lock. */
    static Delivery onChunk(CollectiveEngine e, int peer, Message.Collective c) {
        Delivery d = offerChunk(e, peer, c);
        if (d == Delivery.ACCEPTED) {
            e.deferrals.taken(peer);
        }
        return d;
    }

    /**
     * True if a large chunk that cannot be applied now stays in the transport's buffer for a while instead of being
     * copied into the store ({@link Deferrals}); only where waiting callers poll their lanes.
     */
    private static boolean deferred(CollectiveEngine e, int peer, Message.Collective c) {
        return e.progress != Progress.NONE && e.deferrals.defer(peer, c, System.nanoTime());
    }

    private static Delivery offerChunk(CollectiveEngine e, int peer, Message.Collective c) {
        OpState op = e.active.get(c.communicator(), c.opSeq());
        if (op == null) {
            CommState cs = e.comms.get(c.communicator());
            if (cs != null && (c.opSeq() < cs.nextSeq || cs.closed != null)) {
                EngineFailures.lateChunk(e, cs, peer, c);
                return Delivery.ACCEPTED; // late chunk of an operation that ended here: drop it
            }
            if (deferred(e, peer, c)) {
                return Delivery.FULL;
            }
            return e.store.holdEarly(c.communicator(), c.opSeq(), peer, c) ? Delivery.ACCEPTED
                    : Delivery.FULL;
        }
        if (op.failure != null) {
            return Delivery.ACCEPTED;
        }
        int src = op.group.local(peer);
        Fingerprint.Mismatch m = op.fingerprint.compare(c, src);
        if (m != null) {
            EngineFailures.mismatch(e, op, src, m.field(), m.detail());
            return Delivery.ACCEPTED;
        }
        if (c.step() > op.round) {
            if (MismatchProbe.is(c)) {
                return Delivery.ACCEPTED; // its fingerprint matched: nothing to do
            }
            Slot ahead = op.aheadSlot(src, c.step());
            if (ahead == null) {
                if (deferred(e, peer, c)) {
                    return Delivery.FULL;
                }
                StoredChunk held = e.store.hold(peer, c);
                return held != null && op.holdLater(held, e.store) ? Delivery.ACCEPTED : Delivery.FULL;
            }
            // straight into its target: no copy to hold
            Fingerprint.Mismatch m2 = OpWrites.applyTo(op, ahead, src, c, true);
            if (m2 != null) {
                EngineFailures.mismatch(e, op, src, m2.field(), m2.detail());
            }
            return Delivery.ACCEPTED;
        }
        apply(e, op, src, c, true);
        return Delivery.ACCEPTED;
    }

    /** Applies a chunk of the open round, or fails the operation if it does not fit the schedule. Under the lock. */
    static void apply(CollectiveEngine e, OpState op, int src, Message.Collective c, boolean mayUnlock) {
        Fingerprint.Mismatch m = OpWrites.apply(op, src, c, mayUnlock);
        if (m != null) {
            EngineFailures.mismatch(e, op, src, m.field(), m.detail());
        }
    }

    /**
     * Moves the chunks that arrived before {@code op} was posted from the store into its later list, after checking
     * each against its fingerprint (a probe is only checked: it has no round and no bytes). Under the lock.
     */
    static void adoptEarly(CollectiveEngine e, OpState op) {
        List<StoredChunk> stored = e.store.takeEarly(op.group.id(), op.seq);
        if (stored == null) {
            return;
        }
        for (int j = 0; j < stored.size(); j++) { // indexed: no iterator
            StoredChunk c = stored.get(j);
            int src = op.group.local(c.worldSrc());
            Fingerprint.Mismatch m = op.fingerprint.compare(c.message(), src);
            if (m != null) {
                EngineFailures.mismatch(e, op, src, m.field(), m.detail());
            }
        }
        stored.removeIf(c -> MismatchProbe.is(c.message()));
        op.later = stored; // the store's list, now the operation's: no second list (later is empty at post)
    }

    /** Applies the chunks of {@code op}'s later list that belong to round {@code k} or before. Under the lock. */
    static void applyLater(CollectiveEngine e, OpState op, int k) {
        List<StoredChunk> later = op.later;
        if (later.isEmpty()) { // the usual case
            return;
        }
        int kept = 0; // indexed, compacting in place: no iterator
        for (int j = 0; j < later.size(); j++) {
            StoredChunk c = later.get(j);
            if (op.failure == null && c.message().step() <= k) {
                e.store.release(c);
                apply(e, op, op.group.local(c.worldSrc()), c.message(), false);
                e.store.recycle(c); // copied or reduced into its target (or refused): nothing refers to it
            } else {
                later.set(kept++, c);
            }
        }
        while (later.size() > kept) {
            later.removeLast();
        }
    }

    /** Releases the chunks left in {@code op}'s later list when it ends. Under the lock. */
    static void dropLater(CollectiveEngine e, OpState op) {
        List<StoredChunk> later = op.later;
        for (int j = 0; j < later.size(); j++) { // indexed: no iterator
            StoredChunk c = later.get(j);
            e.store.release(c);
            e.store.recycle(c);
        }
        op.later = List.of();
        e.store.recycleList(later);
    }

    /** {@link CollectiveEngine#deliverWaiting}: takes the lock, waits on the store's space while it is full. */
    static boolean deliverWaiting(CollectiveEngine e, int peer, Message message, long deadlineNanos)
            throws InterruptedException {
        e.lock.lock();
        try {
            while (e.onMessage(peer, message) == Delivery.FULL) {
                long now = System.nanoTime();
                long left = deadlineNanos - now;
                if (left <= 0) {
                    return false;
                }
                long expiry = e.deferrals.nextExpiry(now); // a deferred chunk is stored when its window ends
                e.spaceFreed.awaitNanos(expiry == Long.MAX_VALUE ? left : Math.min(left, Math.max(1, expiry - now)));
            }
            return true;
        } finally {
            e.lock.unlock();
        }
    }
}
