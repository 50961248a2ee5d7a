package io.nexar.internal.collective;

import io.nexar.CollectiveMismatchException;
import io.nexar.CollectiveMismatchException.Field;
import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.PeerFailedException;
import io.nexar.internal.collective.OpState.Slot;
import io.nexar.internal.collective.OpState.StoredChunk;
import io.nexar.internal.protocol.AbortReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

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
 * <p>Store: chunks of operations not yet posted, or of rounds not yet open, are copied and counted against
 * {@code maxStoredBytes}; a chunk that does not fit is refused ({@link Delivery#FULL}, the sender waits) unless the
 * store holds nothing from its sender, so every sender can always make progress. Chunks of finished operations are
 * dropped, and everything an operation held is released when it ends (inventory W16).
 *
 * <p>Threading: one lock guards all state; it is held while a chunk is copied or reduced into a user buffer (so an
 * operation that ended never sees a late write) and never across I/O.
 */
public final class CollectiveEngine {
    private final long maxStoredBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition spaceFreed = lock.newCondition();
    private final Map<OpKey, OpState> active = new HashMap<>();
    private final Map<OpKey, List<StoredChunk>> early = new HashMap<>();
    private final Map<OpKey, Message.CollectiveAbort> earlyAborts = new HashMap<>();
    private final Map<OpKey, Integer> earlyAbortSenders = new HashMap<>();
    private final Map<Integer, CommState> comms = new HashMap<>();
    private final Map<Integer, String> down = new HashMap<>();
    private final Map<Integer, Long> storedBySender = new HashMap<>();
    private long storedBytes;
    private String closedReason;

    /** @param maxStoredBytes bound of the early-chunk store (setting {@code unexpected.max.bytes}) */
    public CollectiveEngine(long maxStoredBytes) {
        this.maxStoredBytes = maxStoredBytes;
    }

    /** Bytes held for operations or rounds not yet open. */
    public long storedBytes() {
        lock.lock();
        try {
            return storedBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Number of operations posted and not yet ended (for leak checks). */
    public int activeOperations() {
        lock.lock();
        try {
            return active.size();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------ driver side

    /**
     * Registers an operation under the communicator's next sequence number and moves in its early chunks. Never
     * blocks; an operation that cannot run (closed, broken communicator, member down, already aborted) is returned
     * failed.
     */
    OpState post(Group group, Fingerprint fp, java.util.function.LongFunction<ErrorContext> context,
                 Schedule schedule, io.nexar.DataType type, io.nexar.ReduceOp combiner, MemorySegment[] buffers) {
        lock.lock();
        try {
            CommState cs = comms.computeIfAbsent(group.id(), id -> new CommState());
            long seq = cs.nextSeq++;
            var op = new OpState(group, seq, fp, context.apply(seq), schedule, type, combiner, buffers,
                    lock.newCondition());
            var key = new OpKey(group.id(), seq);
            active.put(key, op);
            if (closedReason != null) {
                op.fail(new CommunicatorClosedException(op.context, "failed: " + closedReason), true);
            } else if (cs.broken != null) {
                op.fail(new CollectiveMismatchException(op.context, cs.brokenField, "cannot run: the communicator's"
                        + " collectives are broken since " + cs.broken), true);
            }
            for (int r = 0; r < group.size() && op.failure == null; r++) {
                String why = down.get(group.world(r));
                if (why != null) {
                    op.fail(new PeerFailedException(op.context.withPeer(r), "cannot complete: rank " + r + " " + why),
                            true);
                }
            }
            Message.CollectiveAbort abort = earlyAborts.remove(key);
            if (abort != null) {
                applyAbort(op, earlyAbortSenders.remove(key), abort);
            }
            List<StoredChunk> stored = early.remove(key);
            if (stored != null) {
                for (StoredChunk c : stored) {
                    int src = group.local(c.worldSrc());
                    Fingerprint.Mismatch m = fp.compare(c.message(), src);
                    if (m != null) {
                        mismatch(op, src, m.field(), m.detail());
                    }
                    op.later.add(c);
                }
            }
            return op;
        } finally {
            lock.unlock();
        }
    }

    /** Opens round {@code k}: creates its receive slots and applies chunks already here. Returns the failure, if any. */
    void open(OpState op, int k, List<Step> steps) {
        lock.lock();
        try {
            if (op.failure != null) {
                return;
            }
            op.round = k;
            op.slots.clear();
            op.remaining = 0;
            int w = op.type.byteSize();
            for (Step s : steps) {
                Slice dst;
                int peer;
                switch (s) {
                    case Step.RecvInto r -> {
                        dst = r.dst();
                        peer = r.peer();
                    }
                    case Step.RecvReduce r -> {
                        dst = r.dst();
                        peer = r.peer();
                    }
                    default -> {
                        continue;
                    }
                }
                op.slots.put(peer, new Slot(s, op.buffers[dst.buf().ordinal()], dst.offset() * w, dst.count() * w));
                op.remaining++;
            }
            for (var it = op.later.iterator(); it.hasNext() && op.failure == null; ) {
                StoredChunk c = it.next();
                if (c.message().step() <= k) {
                    it.remove();
                    release(c);
                    apply(op, op.group.local(c.worldSrc()), c.message());
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the open round's receives are done, the operation failed or {@code nanos} passed. */
    boolean awaitRound(OpState op, long deadlineNanos) throws InterruptedException {
        lock.lock();
        try {
            while (op.failure == null && op.remaining > 0) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                op.progress.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The first sender the open round still waits for, or -1. */
    int awaited(OpState op) {
        lock.lock();
        try {
            return op.slots.entrySet().stream().filter(e -> !e.getValue().done).mapToInt(Map.Entry::getKey).min()
                    .orElse(-1);
        } finally {
            lock.unlock();
        }
    }

    /** Fails {@code op} (if not failed yet) and returns its failure. */
    io.nexar.NexarException fail(OpState op, io.nexar.NexarException e) {
        lock.lock();
        try {
            if (e instanceof CollectiveMismatchException m && op.failure == null) {
                breakComm(op.group.id(), op.seq, m.field());
            }
            op.fail(e, false);
            return op.failure;
        } finally {
            lock.unlock();
        }
    }

    /** The operation's failure, or null. */
    io.nexar.NexarException failure(OpState op) {
        lock.lock();
        try {
            return op.failure;
        } finally {
            lock.unlock();
        }
    }

    /** Ends an operation: unregisters it and releases what it held. After this, nothing writes its buffers. */
    void end(OpState op) {
        lock.lock();
        try {
            active.remove(new OpKey(op.group.id(), op.seq));
            for (StoredChunk c : op.later) {
                release(c);
            }
            op.later.clear();
            op.slots.clear();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------ inbound side

    /** Handles a Collective or CollectiveAbort message from world rank {@code peer}. */
    public Delivery onMessage(int peer, Message message) {
        lock.lock();
        try {
            if (closedReason != null) {
                return Delivery.ACCEPTED;
            }
            return switch (message) {
                case Message.Collective c -> onChunk(peer, c);
                case Message.CollectiveAbort a -> {
                    onAbort(peer, a);
                    yield Delivery.ACCEPTED;
                }
                default -> Delivery.ACCEPTED;
            };
        } finally {
            lock.unlock();
        }
    }

    /** Delivers, waiting while the store is full, at most until {@code deadlineNanos}. */
    public boolean deliverWaiting(int peer, Message message, long deadlineNanos) throws InterruptedException {
        lock.lock();
        try {
            while (onMessage(peer, message) == Delivery.FULL) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                spaceFreed.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** World rank {@code peer} is gone: fails every operation of a communicator it belongs to. */
    public void onPeerDown(int peer, String why) {
        lock.lock();
        try {
            if (down.putIfAbsent(peer, why) != null) {
                return;
            }
            for (OpState op : active.values()) {
                int r = op.group.local(peer);
                if (r >= 0) {
                    op.fail(new PeerFailedException(op.context.withPeer(r), "cannot complete: rank " + r + " " + why),
                            true);
                }
            }
            spaceFreed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Fails every operation and refuses new ones. Idempotent. */
    public void close(String reason) {
        lock.lock();
        try {
            if (closedReason != null) {
                return;
            }
            closedReason = reason;
            for (OpState op : active.values()) {
                op.fail(new CommunicatorClosedException(op.context, "failed: " + reason), true);
            }
            early.clear();
            earlyAborts.clear();
            storedBySender.clear();
            storedBytes = 0;
            spaceFreed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private Delivery onChunk(int peer, Message.Collective c) {
        var key = new OpKey(c.communicator(), c.opSeq());
        OpState op = active.get(key);
        if (op == null) {
            CommState cs = comms.get(c.communicator());
            if (cs != null && c.opSeq() < cs.nextSeq) {
                return Delivery.ACCEPTED; // late chunk of an operation that ended here: drop it
            }
            if (!store(peer, c.payload().byteSize())) {
                return Delivery.FULL;
            }
            early.computeIfAbsent(key, k -> new ArrayList<>()).add(new StoredChunk(peer, detach(c)));
            return Delivery.ACCEPTED;
        }
        if (op.failure != null) {
            return Delivery.ACCEPTED;
        }
        int src = op.group.local(peer);
        Fingerprint.Mismatch m = op.fingerprint.compare(c, src);
        if (m != null) {
            mismatch(op, src, m.field(), m.detail());
            return Delivery.ACCEPTED;
        }
        if (c.step() > op.round) {
            if (!store(peer, c.payload().byteSize())) {
                return Delivery.FULL;
            }
            op.later.add(new StoredChunk(peer, detach(c)));
            return Delivery.ACCEPTED;
        }
        apply(op, src, c);
        return Delivery.ACCEPTED;
    }

    /** Applies a chunk of the open round (or reports it as unexpected). */
    private void apply(OpState op, int src, Message.Collective c) {
        Slot slot = c.step() == op.round ? op.slots.get(src) : null;
        if (slot == null || slot.done) {
            mismatch(op, src, Field.SCHEDULE, "rank " + src + " sent a message for step " + c.step()
                    + " that this rank's schedule does not expect (this rank is at step " + op.round
                    + "; are the ranks configured alike?)");
            return;
        }
        long len = c.payload().byteSize();
        int w = op.type.byteSize();
        if (c.totalBytes() != slot.expectedBytes || c.offset() % w != 0 || len % w != 0
                || slot.receivedBytes + len > slot.expectedBytes) {
            mismatch(op, src, Field.SIZE, "step " + c.step() + " expects " + slot.expectedBytes + " bytes from rank "
                    + src + ", which sent " + c.totalBytes());
            return;
        }
        if (len > 0) {
            if (slot.step instanceof Step.RecvReduce) {
                Kernels.reduce(slot.target, slot.byteOffset + c.offset(), c.payload(), 0, len / w, op.type,
                        op.combiner);
            } else {
                MemorySegment.copy(c.payload(), 0, slot.target, slot.byteOffset + c.offset(), len);
            }
        }
        slot.receivedBytes += len;
        if (slot.receivedBytes == slot.expectedBytes) {
            slot.done = true;
            if (--op.remaining == 0) {
                op.progress.signalAll();
            }
        }
    }

    private void onAbort(int peer, Message.CollectiveAbort a) {
        var key = new OpKey(a.communicator(), a.opSeq());
        OpState op = active.get(key);
        if (op != null) {
            applyAbort(op, peer, a);
            return;
        }
        CommState cs = comms.get(a.communicator());
        if (cs != null && a.opSeq() < cs.nextSeq) {
            if (a.reason() == AbortReason.MISMATCH) { // an operation this rank finished did not match elsewhere
                breakComm(a.communicator(), a.opSeq(), Field.fromCode(a.field()));
            }
            return;
        }
        earlyAborts.putIfAbsent(key, a);
        earlyAbortSenders.putIfAbsent(key, peer);
    }

    private void applyAbort(OpState op, int worldPeer, Message.CollectiveAbort a) {
        int src = op.group.local(worldPeer);
        if (a.reason() == AbortReason.MISMATCH) {
            Field f = Field.fromCode(a.field());
            breakComm(op.group.id(), op.seq, f);
            op.fail(new CollectiveMismatchException(op.context.withPeer(src), f == null ? Field.SCHEDULE : f,
                    "was aborted by rank " + src + ": " + a.detail()), true);
        } else {
            op.fail(new PeerFailedException(op.context.withPeer(src), "cannot complete: rank " + src
                    + " failed it (" + a.detail() + ")"), true);
        }
    }

    private void mismatch(OpState op, int src, Field field, String detail) {
        if (op.failure == null) {
            breakComm(op.group.id(), op.seq, field);
        }
        op.fail(new CollectiveMismatchException(op.context.withPeer(src), field, "does not match rank " + src + ": "
                + detail), false);
    }

    private void breakComm(int comm, long seq, Field field) {
        CommState cs = comms.computeIfAbsent(comm, id -> new CommState());
        if (cs.broken == null) {
            cs.broken = "seq " + seq + " did not match (" + (field == null ? "unknown field" : field) + ")";
            cs.brokenField = field == null ? Field.SCHEDULE : field;
            // later operations already posted can never pair up reliably either: fail them now
            for (OpState op : active.values()) {
                if (op.group.id() == comm && op.seq > seq) {
                    op.fail(new CollectiveMismatchException(op.context, cs.brokenField, "cannot run: the"
                            + " communicator's collectives are broken since " + cs.broken), true);
                }
            }
        }
    }

    private boolean store(int peer, long len) {
        long mine = storedBySender.getOrDefault(peer, 0L);
        if (len > 0 && mine > 0 && storedBytes + len > maxStoredBytes) {
            return false;
        }
        storedBySender.put(peer, mine + len);
        storedBytes += len;
        return true;
    }

    private void release(StoredChunk c) {
        long len = c.message().payload().byteSize();
        if (len == 0 || closedReason != null) {
            return;
        }
        storedBytes -= len;
        storedBySender.merge(c.worldSrc(), -len, Long::sum);
        if (storedBySender.get(c.worldSrc()) == 0) {
            storedBySender.remove(c.worldSrc());
        }
        spaceFreed.signalAll();
    }

    private static Message.Collective detach(Message.Collective c) {
        return new Message.Collective(c.communicator(), c.opSeq(), c.step(), c.operation(), c.dataType(),
                c.reduceOp(), c.root(), c.count(), c.totalBytes(), c.offset(),
                MemorySegment.ofArray(c.payload().toArray(ValueLayout.JAVA_BYTE)));
    }

    private record OpKey(int comm, long seq) {
    }

    /** Per communicator: the next sequence number this rank will post, and whether a mismatch broke it. */
    private static final class CommState {
        long nextSeq;
        String broken;
        Field brokenField;
    }
}
