package io.nexar.internal.collective;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.HangReports;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Progress;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.ShardTable;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The receive side of collectives for one process: registers posted operations, applies arriving chunks straight
 * into the open round's target slices (copy or reduce, on the transport thread), and keeps chunks that arrive early.
 *
 * <pre>
 *   chunk (comm, seq, step, src) ──▶ op posted?  ── no ──▶ early store (bounded)            ─┐ moved in at post
 *                                        │ yes                                                 │
 *                                        ▼                                                     ▼
 *                          fingerprint matches? ── no ──▶ fail op (CollectiveMismatchException)
 *                                        │ yes
 *                          step == open round? ── yes ──▶ copy/reduce into the slot; wake driver when round done
 *                                        │ later round ──▶ op's later list (counted in the store)
 * </pre>
 *
 * <p>Store ({@link EarlyStore}, bounded; a chunk that does not fit is refused with {@link Delivery#FULL} and the
 * sender waits). Chunks of finished operations are dropped, after a check: one for an operation that succeeded here
 * proves a mismatch ({@link EngineFailures#lateChunk}); everything an operation held is released when it ends
 * (docs/design.md W16). Per-communicator state (sequence numbers, broken, closed) is a {@link CommState}.
 *
 * <p>Threading: each communicator is a shard ({@link CommState}) with its own lock, which guards its operations and
 * their rounds, never held across I/O: two communicators' deliveries and drivers never wait for each other. What the
 * shards share is thread-safe on its own and taken inside a shard's lock, never the reverse: the early store and its
 * budget ({@link EarlyStore}, whose lock is also where refused senders wait for space, holding no shard's lock), the
 * {@link Deferrals}, the peers down, why the engine was aborted or closed, the used ids. A process-wide fact (a peer
 * down, an abort, a close) is published before the shards are visited, and a post registers its operation under its
 * shard's lock before it reads those facts: so either the post sees the fact or the visit finds the operation. A chunk
 * or abort of a communicator with no shard yet is kept under the {@link io.nexar.internal.util.ShardTable}'s monitor, which orders it against
 * the shard's creation. A small chunk is copied or reduced into its user buffer under its shard's lock; a chunk of at
 * least {@link OpState#UNLOCKED_BYTES} with it released (its bytes claimed before and counted after, under the
 * lock; an operation ends only once no such write is under way, so an operation that ended
 * never sees a late write). The driver checks its round and its failure without the lock (volatile fields) and parks
 * on its own thread without it, no Condition ({@link OpState#parkDriver}): a delivery that completes the round
 * unparks a driver that does not then queue for the lock it holds (which cost an allocation per wait); the lock is
 * taken only when a probe or hang report may be due. Nothing is allocated per round, and per operation only what its
 * messages need: operations in flight are found by (communicator, sequence number) in {@link ActiveOps} (no key
 * objects), and a blocking call reuses its communicator's last {@link OpState} ({@link CallRunner}).
 *
 * <p>The engine owns all its tables; stateless helpers work on them under the shards' locks: {@link EngineFailures}
 * (how operations fail other than by completing), {@link EngineReports} (what it tells people and peers) and {@link
 * EngineChunks} (which shard an arriving message goes to, where a chunk goes in it, and the chunks an operation or
 * round finds waiting when it is posted or opened). Post, open, end and the driver's wait stay here.
 */
public final class CollectiveEngine implements io.nexar.internal.transport.ReceiveSide {
    // Package-private for the Engine* helpers. The per-communicator tables are in each CommState, under its lock.
    final EarlyStore store;
    /** Large early chunks left in their transport's buffer until their operation or round can take them. */
    final Deferrals deferrals = new Deferrals();
    final ShardTable<CommState> comms = new ShardTable<>(cs -> cs.id, cs -> cs.lock, CommState::new);
    /** World ranks down, with why (first reason wins). */
    final Map<Integer, String> down = new ConcurrentHashMap<>();
    /** Communicator ids used on this process, the world's 0 included; never reused (state is keyed by id). */
    private final Set<Integer> usedIds = new HashSet<>(Set.of(0));
    /** Why the engine was closed, or null; set once, under the {@link io.nexar.internal.util.ShardTable}'s monitor. */
    volatile String closedReason;
    /** Set by {@link #abortAll}: operations posted later fail at once. */
    volatile Aborted aborted;

    /** Why every operation of the engine fails ({@link #abortAll}): the world rank to blame (or -1) and why. */
    record Aborted(int peer, String why) {
    }
    /** Who reads the transport while a driver waits for a round (see {@link Progress}). */
    volatile Progress progress = Progress.NONE;
    volatile Transport abortTransport;
    /** Where a driver whose round made no progress for {@code hang.report.after} reports; null for none. */
    private volatile HangReports hangs;

    /** @param maxStoredBytes bound of the early-chunk store (setting {@code unexpected.max.bytes}) */
    public CollectiveEngine(long maxStoredBytes) {
        this.store = new EarlyStore(maxStoredBytes);
    }

    /**
     * Sends the MISMATCH aborts of a mismatch found after its operation ended (see {@link EngineFailures#lateChunk}).
     * Set once, by the first communicator's {@link Collectives}; null for an engine without peers to tell.
     */
    void abortsThrough(Transport transport) {
        abortTransport = transport;
    }

    /** Setting {@code collective.probe.after} in nanoseconds (0: no fingerprint probes); see {@link MismatchProbe}. */
    private volatile long probeAfterNanos = MismatchProbe.AFTER_NANOS;

    /**
     * Sets when a stalled round sends fingerprint probes (docs/failure-model.md "Mismatches"). Once, before any
     * collective.
     *
     * @param after setting {@code collective.probe.after}: how long a round waits without progress first; zero for
     *              never
     */
    public void probesAfter(java.time.Duration after) {
        probeAfterNanos = after.toNanos();
    }

    /** Drivers whose round made no progress for {@code hang.report.after} report through {@code h}. Set once. */
    public void reportsHangsTo(HangReports h) {
        hangs = h;
    }

    /**
     * Lines describing this process's collectives for a hang report: each operation in progress, and each
     * communicator with none ("idle since ..."); adds the world ranks the operations wait for to {@code waitingFor}.
     */
    public void describe(List<String> lines, Set<Integer> waitingFor) {
        EngineReports.describe(this, lines, waitingFor);
    }

    /**
     * The flight recorders of this process's communicators for {@code Communicator.diagnostics()}: a heading per
     * communicator, then a line per recorded operation, oldest first.
     */
    public void describeRecent(List<String> lines) {
        EngineReports.describeRecent(this, lines);
    }

    /** Logs the flight recorder of {@code op}'s communicator after {@code op} failed (and ended). */
    void logRecent(OpState op) {
        EngineReports.logRecent(this, op);
    }

    /** Drivers poll {@code p} for their round's messages before they sleep. Set once, before any operation. */
    public void drivenBy(Progress p) {
        progress = Objects.requireNonNull(p, "progress");
    }

    /** Bytes held for operations or rounds not yet open. */
    public long storedBytes() {
        return store.bytes();
    }

    // ------------------------------------------------------------------------------------------------ driver side

    /**
     * Registers an operation under the communicator's next sequence number and moves in its early chunks. Never
     * blocks; an operation that cannot run (closed, broken communicator, member down, already aborted) is returned
     * failed.
     */
    OpState post(Group group, Fingerprint fp, Schedule schedule, io.nexar.DataType type, io.nexar.ReduceOp combiner,
                 MemorySegment[] buffers) {
        return post(group, fp, schedule, type, combiner, buffers, null);
    }

    /**
     * As {@link #post(Group, Fingerprint, Schedule, io.nexar.DataType, io.nexar.ReduceOp, MemorySegment[])}, reusing
     * {@code spare} (an operation of {@code group} that ended and is {@link OpState#reusable}, or null) instead of a
     * new state: a blocking collective allocates no operation state in steady state.
     */
    OpState post(Group group, Fingerprint fp, Schedule schedule, io.nexar.DataType type, io.nexar.ReduceOp combiner,
                 MemorySegment[] buffers, OpState spare) {
        CommState cs = comms.getOrCreate(group.id());
        cs.lock.lock();
        try {
            long seq = cs.nextSeq++;
            var op = (spare != null && spare.group == group ? spare : new OpState(group, cs.lock))
                    .init(seq, fp, schedule, type, combiner, buffers);
            cs.active.put(op); // registered before the process-wide facts are read (see the class comment)
            if (deferrals.any()) {
                store.freed(); // a reader thread may hold a chunk of this operation back for it
            }
            EngineFailures.failAtPost(this, op, cs);
            EngineChunks.adoptEarly(this, op);
            EngineFailures.failForPeersDown(this, op);
            return op;
        } finally {
            cs.lock.unlock();
        }
    }

    /** Opens round {@code k}: creates its receive slots and applies chunks already here. Returns the failure, if any. */
    void open(OpState op, int k, List<Step> steps) {
        op.lock.lock();
        try {
            if (op.failure != null) {
                return;
            }
            op.openRound(k, steps);
            if (deferrals.any()) {
                store.freed(); // a reader thread may hold a chunk of this round back for it
            }
            EngineChunks.applyLater(this, op, k);
        } finally {
            op.lock.unlock();
        }
    }

    /** Waits until the open round's receives are done, the operation failed or {@code nanos} passed. */
    boolean awaitRound(OpState op, long deadlineNanos) throws InterruptedException {
        // onlySender is written by this (the driving) thread when it opened the round
        if (progress.pollUntil(Lane.COLLECTIVE, op, deadlineNanos, op.onlySender)) { // op: is the round done?
            return true;
        }
        var h = hangs;
        long after = h == null ? 0 : h.afterNanos();
        long probeAfter = MismatchProbe.afterNanos(probeAfterNanos, deadlineNanos - op.postedNanos);
        while (!op.getAsBoolean()) { // volatile round-done and failure: no lock
            long now = System.nanoTime();
            long left = deadlineNanos - now;
            if (left <= 0) {
                return false;
            }
            long checkIn = EngineReports.untilStallCheck(op, now, probeAfter, after);
            if (checkIn <= 0) { // a probe or hang report may be due: decide under the lock
                op.lock.lock();
                try {
                    left = EngineReports.stalled(this, h, op, now, left, probeAfter, after);
                } finally {
                    op.lock.unlock();
                }
                if (left < 0) {
                    continue; // a hang report was made: check again
                }
            } else {
                left = Math.min(left, checkIn);
            }
            if (Thread.interrupted()) { // parkNanos returns at once for an interrupted thread: never spin on it
                throw new InterruptedException();
            }
            op.parkDriver(left);
        }
        return true;
    }

    /** The first sender the open round still waits for, or -1. */
    int awaited(OpState op) {
        op.lock.lock();
        try {
            return EngineReports.awaited(op);
        } finally {
            op.lock.unlock();
        }
    }

    /** Fails {@code op} (if not failed yet) and returns its failure. */
    io.nexar.NexarException fail(OpState op, io.nexar.NexarException e) {
        return EngineFailures.fail(this, op, e);
    }

    /** The operation's failure, or null. */
    io.nexar.NexarException failure(OpState op) {
        return op.failure; // volatile, set once: no lock (this runs twice per round)
    }

    /** Ends an operation: unregisters it and releases what it held. After this, nothing writes its buffers. */
    void end(OpState op) {
        CommState cs = comms.get(op.group.id()); // the operation's shard: its lock is op.lock
        cs.lock.lock();
        try {
            op.cancelClaims(); // a chunk still being read is dropped, not waited for
            op.awaitWriters(); // a large chunk written with the lock released finishes first
            if (cs.active.remove(op)) {
                cs.ended(op);
            }
            EngineChunks.dropLater(this, op);
            op.clearSlots();
        } finally {
            cs.lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------ inbound side

    /** Handles a Collective or CollectiveAbort message from world rank {@code peer}. */
    public Delivery onMessage(int peer, Message message) {
        return EngineChunks.route(this, peer, message);
    }

    /**
     * Claims the slot of a large chunk whose header arrived ({@link io.nexar.internal.transport.PayloadSink}); null
     * if it cannot be written now or does not fit, and then its whole frame comes through {@link #onMessage}, which
     * reports whatever is wrong with it.
     */
    public io.nexar.internal.transport.PayloadSink claim(int peer, Message.Collective header, long payloadBytes) {
        return EngineChunks.claim(this, peer, header, payloadBytes);
    }

    /** A claim's reader is done with it: commits its bytes ({@code commit}, unless cancelled) and releases it. */
    void releaseClaim(OpState op, ChunkClaim claim, boolean commit) {
        op.lock.lock();
        try {
            if (claim.finish(commit)) {
                op.dropClaim(claim);
            }
        } finally {
            op.lock.unlock();
        }
    }

    /** Delivers, waiting while the store is full, at most until {@code deadlineNanos}. */
    public boolean deliverWaiting(int peer, Message message, long deadlineNanos) throws InterruptedException {
        return EngineChunks.deliverWaiting(this, peer, message, deadlineNanos);
    }

    /**
     * World rank {@code peer} is gone: fails every operation of a communicator it belongs to; after a polite leave
     * ({@code why} starts with {@code "left ("}), only those that still need something from it (it sent all it had
     * to send before leaving, so the others can finish). {@code cause} is not used: it names nothing an operation's
     * error does not.
     */
    @Override
    public void onPeerDown(int peer, String why, Throwable cause) {
        EngineFailures.peerDown(this, peer, why);
    }

    /**
     * World rank {@code peer} is reachable again after all (a sparse world's rebuild bridged the hole that had cut it
     * off from this rank): operations with it are no longer refused. Operations that already failed stay failed.
     */
    @Override
    public void forgetDown(int peer) {
        down.remove(peer);
    }

    /**
     * Fails every pending operation of every communicator (recovery policy abort, or this process excluded); later
     * operations are refused by the communicator.
     *
     * @param peer the world rank to blame (the context's peer, in each communicator's numbering), or -1
     * @param why completes "cannot complete: ...", for example {@code world rank 2 failed (...)}
     */
    @Override
    public void abortAll(int peer, String why) {
        EngineFailures.abortAll(this, peer, why);
    }

    /**
     * Retires communicator {@code group} here after an automatic recovery replaced it, or found no quorum after the
     * others left (see {@link Retirements}): no new operation of it; those that still need one of {@code failedWorld}
     * (world ranks that failed or left) fail and tell the others; the rest run to their end; every other member is told
     * the first operation this rank will not post. Idempotent. Any thread but a shard's lock holder.
     */
    @Override
    public void retire(Group group, int[] failedWorld, String why) {
        Retirements.retire(this, group, failedWorld, why);
    }

    /**
     * Reserves communicator id {@code id} on this process.
     *
     * @return false if this process already uses or used it (a collision: the split must pick another id)
     */
    public boolean reserveId(int id) {
        synchronized (usedIds) {
            return usedIds.add(id);
        }
    }

    /** True if communicator id {@code id} is in use (or was) on this process; reserves nothing. */
    public boolean isIdUsed(int id) {
        synchronized (usedIds) {
            return usedIds.contains(id);
        }
    }

    /**
     * Closes one communicator here (a sub-communicator): fails its operations, drops its early chunks and refuses
     * its new operations and chunks. Other communicators are untouched. Idempotent.
     */
    public void closeCommunicator(int comm, String reason) {
        EngineFailures.closeCommunicator(this, comm, reason);
    }

    /** Fails every operation and refuses new ones. Idempotent. */
    @Override
    public void close(String reason) {
        EngineFailures.close(this, reason);
    }
}
