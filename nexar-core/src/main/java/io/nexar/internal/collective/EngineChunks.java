package io.nexar.internal.collective;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.transport.Progress;
import java.util.List;

/**
 * Where a {@link CollectiveEngine}'s arriving chunk goes: into its open round's slot, a later round's slot ahead of
 * time, its operation's later list, the early store, or back to its transport's buffer for a while.
 *
 * <p>Stateless: every method works on the engine's tables. {@link #route} and {@link #claim} find the message's
 * communicator shard ({@link CommState}) and take its lock; {@link #beforeComm} runs under the shard table's monitor
 * (a communicator with no shard yet); {@link #deliverWaiting} waits for room holding neither; every other method runs
 * under the lock of the shard concerned.
 */
final class EngineChunks {
    private EngineChunks() {
    }

    /**
     * {@link CollectiveEngine#onMessage}: finds the message's communicator shard and handles it under its lock, or keeps
     * it (under the shard table's monitor) for a communicator with no shard yet.
     */
    static Delivery route(CollectiveEngine e, int peer, Message message) {
        int comm;
        if (message instanceof Message.Collective c) {
            comm = c.communicator();
        } else if (message instanceof Message.CollectiveAbort a) {
            comm = a.communicator();
        } else {
            return Delivery.ACCEPTED;
        }
        CommState cs = e.comms.get(comm);
        if (cs == null) {
            synchronized (e.comms) { // no shard yet: ordered against its creation (see ShardTable)
                cs = e.comms.get(comm);
                if (cs == null) {
                    return e.closedReason != null ? Delivery.ACCEPTED : beforeComm(e, peer, message);
                }
            }
        }
        cs.lock.lock();
        try {
            if (e.closedReason != null) { // read under the shard's lock: close visits the shards after setting it
                return Delivery.ACCEPTED;
            }
            return switch (message) {
                case Message.Collective c -> onChunk(e, cs, peer, c);
                case Message.CollectiveAbort a -> {
                    EngineFailures.onAbort(e, cs, peer, a);
                    yield Delivery.ACCEPTED;
                }
                default -> Delivery.ACCEPTED;
            };
        } finally {
            cs.lock.unlock();
        }
    }

    /** {@link CollectiveEngine#claim}, under the shard's lock. */
    static io.nexar.internal.transport.PayloadSink claim(CollectiveEngine e, int peer, Message.Collective header,
                                                         long payloadBytes) {
        CommState cs = e.comms.get(header.communicator());
        if (cs == null) {
            return null;
        }
        cs.lock.lock();
        try {
            OpState op = e.closedReason != null ? null : cs.active.get(header.communicator(), header.opSeq());
            if (op == null || op.failure != null) {
                return null;
            }
            int src = op.group.local(peer);
            Slot slot = src < 0 || op.fingerprint.compare(header, src) != null ? null
                    : OpWrites.claimSlot(op, src, header, payloadBytes);
            if (slot == null) {
                return null;
            }
            e.deferrals.taken(peer);
            var claim = new ChunkClaim(e, op, slot, header.step(), header.offset(), payloadBytes);
            op.addClaim(claim);
            return claim;
        } finally {
            cs.lock.unlock();
        }
    }

    /** Handles chunk {@code c} from world rank {@code peer} of communicator {@code cs}. Under its lock. */
    static Delivery onChunk(CollectiveEngine e, CommState cs, int peer, Message.Collective c) {
        Delivery d = offerChunk(e, cs, peer, c);
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

    /**
     * Handles a chunk or abort of a communicator that has no shard here yet: kept in the early store (or deferred)
     * until an operation of it is posted. Under the {@link io.nexar.internal.util.ShardTable}'s monitor.
     */
    static Delivery beforeComm(CollectiveEngine e, int peer, Message message) {
        if (message instanceof Message.CollectiveAbort a) {
            e.store.holdAbort(new EarlyStore.OpKey(a.communicator(), a.opSeq()), peer, a, e.abortTransport);
            return Delivery.ACCEPTED;
        }
        Message.Collective c = (Message.Collective) message;
        Delivery d = early(e, peer, c);
        if (d == Delivery.ACCEPTED) {
            e.deferrals.taken(peer);
        }
        return d;
    }

    /** Keeps chunk {@code c} of an operation not posted yet (or leaves it with its transport for a while). */
    private static Delivery early(CollectiveEngine e, int peer, Message.Collective c) {
        if (deferred(e, peer, c)) {
            return Delivery.FULL;
        }
        return e.store.holdEarly(c.communicator(), c.opSeq(), peer, c) ? Delivery.ACCEPTED : Delivery.FULL;
    }

    private static Delivery offerChunk(CollectiveEngine e, CommState cs, int peer, Message.Collective c) {
        OpState op = cs.active.get(c.communicator(), c.opSeq());
        if (op == null) {
            if (c.opSeq() < cs.nextSeq || cs.closed != null) {
                EngineFailures.lateChunk(e, cs, peer, c);
                return Delivery.ACCEPTED; // late chunk of an operation that ended here: drop it
            }
            if (cs.retired != null) {
                return Delivery.ACCEPTED; // of an operation this rank will never post (Retirements): drop it
            }
            return early(e, peer, c);
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
     * each against its fingerprint (a probe is only checked: it has no round and no bytes). Under its shard's lock.
     */
    static void adoptEarly(CollectiveEngine e, OpState op) {
        if (e.store.isEmpty()) { // the usual case: no store lock (see EarlyStore#isEmpty)
            return;
        }
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

    /** Releases the chunks left in {@code op}'s later list when it ends. Under its shard's lock. */
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

    /**
     * {@link CollectiveEngine#deliverWaiting}: while the store is full, waits for space on the store's lock, holding
     * no shard's; the epoch read before each attempt makes sure a release between the attempt and the wait is seen.
     */
    static boolean deliverWaiting(CollectiveEngine e, int peer, Message message, long deadlineNanos)
            throws InterruptedException {
        for (;;) {
            long epoch = e.store.room().epoch();
            if (e.onMessage(peer, message) != Delivery.FULL) {
                return true;
            }
            long now = System.nanoTime();
            long left = deadlineNanos - now;
            if (left <= 0) {
                return false;
            }
            long expiry = e.deferrals.nextExpiry(now); // a deferred chunk is stored when its window ends
            e.store.room().await(epoch, expiry == Long.MAX_VALUE ? left : Math.min(left, Math.max(1, expiry - now)));
        }
    }
}
