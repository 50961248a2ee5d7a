package io.nexar.internal.collective;

import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundRouter;
import io.nexar.internal.transport.SenderShare;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.RoomSignal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bounded store of a {@link CollectiveEngine}: chunks and aborts of operations not posted yet, and the byte
 * accounting of every chunk held for a later round ({@link OpState#later}). One per process, shared by every
 * communicator's shard ({@link CommState}): thread-safe through its own lock, which is taken inside a shard's lock and
 * never the other way round (it calls nothing outside). Whenever room may have been freed (bytes released, an
 * operation posted or a round opened while a chunk is deferred, an operation failed) {@link #freed} wakes the
 * senders waiting for room ({@link #room}), who never hold a shard's lock while they wait.
 *
 * <p>Bound: a chunk is refused when the store would exceed {@code maxStoredBytes}, unless the store holds nothing
 * from its sender, so every sender can always make progress (and the bound is exceeded by at most one chunk per
 * sender).
 *
 * <p>The chunks of operations not posted yet are bounded in number too ({@link #maxEarlyChunks}: one per
 * {@link #BYTES_PER_CHUNK} of the byte bound, at least {@link #MIN_EARLY_CHUNKS}), with the same exception (a sender
 * that has none held): empty chunks (a barrier's) take no bytes, and a member that sends them for operations that
 * never come (any sequence number, any communicator id) would otherwise grow the store's records without end.
 *
 * <p>No sender may hold more than half of either bound in early chunks ({@link SenderShare}), with the same exception:
 * a member that floods chunks of operations that never come fills its half, and the other senders keep theirs.
 *
 * <p>Aborts of operations not posted yet are bounded per sender too ({@link #MAX_EARLY_ABORTS} each), but not by
 * back-pressure: a member sends one abort per operation that failed on it while running, so one that has more than
 * that many pending here for operations this rank has not started breaks the protocol (a bug, or a hostile member
 * sending them for any sequence number or communicator id), and {@link #holdAbort} throws a {@link ProtocolException}
 * naming it: its lane is failed and it is reported down, as for any protocol violation.
 */
final class EarlyStore {
    private final long maxStoredBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final RoomSignal room = new RoomSignal();
    /** Early aborts held (aborts.size()), readable without the lock for {@link #hasAborts}. */
    private volatile int abortCount;
    private final EarlyOps chunks = new EarlyOps();
    private final Map<OpKey, Message.CollectiveAbort> aborts = new HashMap<>();
    private final Map<OpKey, Integer> abortSenders = new HashMap<>();
    /** Early aborts held, by sender. */
    private final Map<Integer, Integer> abortsBySender = new HashMap<>();
    private final Map<Integer, Long> bySender = new HashMap<>();
    /** Early chunks (of operations not posted yet) held, in all and by sender. */
    private final Map<Integer, Integer> earlyBySender = new HashMap<>();
    /** Early chunks held; volatile for {@link #isEmpty}. */
    private volatile long earlyChunks;
    private final long maxEarlyChunks;
    /** What each sender holds in early chunks: at most half of either bound. */
    private final SenderShare shares;
    private long bytes;
    private boolean closed;
    /** Chunks applied or dropped, kept for the next ones ({@link #recycle}); the first {@link #freeChunks} are. */
    private final StoredChunk[] free = new StoredChunk[MAX_FREE_CHUNKS];
    private int freeChunks;
    /** Lists of chunks given back ({@link #recycleList}), for the next operation's; the first {@link #freeLists}. */
    @SuppressWarnings("unchecked")
    private final ArrayList<StoredChunk>[] lists = new ArrayList[MAX_FREE_LISTS];
    private int freeLists;

    EarlyStore(long maxStoredBytes) {
        this.maxStoredBytes = maxStoredBytes;
        this.maxEarlyChunks = Math.max(MIN_EARLY_CHUNKS, maxStoredBytes / BYTES_PER_CHUNK);
        this.shares = new SenderShare("chunks of collective operations not started here", "its collective lane to"
                + " this rank waits until those operations start", maxStoredBytes, maxEarlyChunks);
    }

    /** About what the records of one held chunk cost the heap; the count bound is the byte bound over it. */
    static final long BYTES_PER_CHUNK = 256;
    /** The count bound of a small store. */
    static final long MIN_EARLY_CHUNKS = 4096;

    /**
     * The early aborts one sender may have pending here; each takes at most about 1.2 KiB (a detail of at most 1024
     * bytes), so about 1.2 MiB per sender.
     */
    static final int MAX_EARLY_ABORTS = 1024;

    /** Chunks kept for reuse at most: a few per peer of a small collective in flight. */
    static final int MAX_FREE_CHUNKS = 64;
    /** Largest payload buffer a chunk kept for reuse may hold: at most 64 of them, 256 KiB, are kept. */
    static final long MAX_FREE_CHUNK_BYTES = 4 << 10;
    /** Lists of chunks kept for reuse at most. */
    static final int MAX_FREE_LISTS = 16;

    /** An operation: (communicator, sequence number); equals and hashCode written out, as on the hot path of OpSpec. */
    record OpKey(int comm, long seq) {
        @Override
        public boolean equals(Object o) {
            return o instanceof OpKey k && comm == k.comm && seq == k.seq;
        }

        @Override
        public int hashCode() {
            return 31 * comm + Long.hashCode(seq);
        }
    }

    /**
     * True if no early chunk or abort is held (then no operation has anything to take at its post). Without the lock:
     * what a post may take was held under its communicator's shard lock (or the {@link io.nexar.internal.util.ShardTable}'s monitor, before
     * the shard existed), which the post holds (or passed) too.
     */
    boolean isEmpty() {
        return earlyChunks == 0 && abortCount == 0;
    }

    /** True if an early abort is held (then a post looks for its own). Without the lock, as {@link #isEmpty}. */
    boolean hasAborts() {
        return abortCount != 0;
    }

    /** Where senders refused for lack of room wait. */
    RoomSignal room() {
        return room;
    }

    /** Room may have been freed: every waiting sender tries again. */
    void freed() {
        room.freed();
    }

    /** Bytes held. */
    long bytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Copies chunk {@code c} from world rank {@code peer} into the store and counts it.
     *
     * @return the stored chunk, or null if it does not fit (the sender must wait)
     */
    StoredChunk hold(int peer, Message.Collective c) {
        lock.lock();
        try {
            long len = c.payload().byteSize();
            long mine = bySender.getOrDefault(peer, 0L);
            if (len > 0 && mine > 0 && bytes + len > maxStoredBytes) {
                return null;
            }
            bySender.put(peer, mine + len);
            bytes += len;
            StoredChunk s = freeChunks > 0 ? free[--freeChunks] : new StoredChunk();
            free[freeChunks] = null;
            return s.fill(peer, c);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Keeps chunk {@code c}, which left the store ({@link #release}d, or never counted) and is referred to by nothing
     * any more, for the next chunk {@link #hold} copies: a small collective's early chunks then allocate nothing.
     */
    void recycle(StoredChunk c) {
        lock.lock();
        try {
            if (freeChunks < free.length && c.bufferBytes() <= MAX_FREE_CHUNK_BYTES) {
                free[freeChunks++] = c;
            }
        } finally {
            lock.unlock();
        }
    }

    /** An empty list of chunks: one given back ({@link #recycleList}), or a new one. */
    ArrayList<StoredChunk> newList() {
        lock.lock();
        try {
            if (freeLists == 0) {
                return new ArrayList<>(4);
            }
            ArrayList<StoredChunk> l = lists[--freeLists];
            lists[freeLists] = null;
            return l;
        } finally {
            lock.unlock();
        }
    }

    /** Keeps {@code l}, a list of chunks that nothing refers to any more, for {@link #newList}; clears it. */
    void recycleList(List<StoredChunk> l) {
        if (!(l instanceof ArrayList<StoredChunk>)) {
            return; // an operation's empty later list (List.of()): nothing to keep, no lock
        }
        lock.lock();
        try {
            if (l instanceof ArrayList<StoredChunk> a && freeLists < lists.length) {
                a.clear();
                lists[freeLists++] = a;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Keeps chunk {@code c} of operation {@code seq} of communicator {@code comm}, not posted yet; false if full. */
    boolean holdEarly(int comm, long seq, int peer, Message.Collective c) {
        lock.lock();
        try {
            int mine = earlyBySender.getOrDefault(peer, 0);
            long len = c.payload().byteSize();
            if (mine > 0 && (earlyChunks >= maxEarlyChunks || !shares.admits(peer, len, 1))) {
                shares.refused(peer, len, 1);
                return false;
            }
            StoredChunk s = hold(peer, c);
            if (s == null) {
                return false;
            }
            shares.add(peer, len, 1);
            List<StoredChunk> held = chunks.get(comm, seq);
            if (held == null) {
                held = newList();
                held.add(s);
                chunks.put(held); // keyed by its first chunk
            } else {
                held.add(s);
            }
            earlyBySender.put(peer, mine + 1);
            earlyChunks++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes and returns the early chunks of operation {@code seq} of communicator {@code comm} (their bytes counted
     * until {@link #release}d), or null.
     */
    List<StoredChunk> takeEarly(int comm, long seq) {
        lock.lock();
        try {
            List<StoredChunk> taken = chunks.remove(comm, seq);
            if (taken != null) {
                uncountEarly(taken);
            }
            return taken;
        } finally {
            lock.unlock();
        }
    }

    /** Early chunks held (for tests and diagnostics). */
    long earlyChunks() {
        lock.lock();
        try {
            return earlyChunks;
        } finally {
            lock.unlock();
        }
    }

    private void uncountEarly(List<StoredChunk> taken) {
        for (int j = 0; j < taken.size(); j++) { // indexed: no iterator
            StoredChunk c = taken.get(j);
            earlyChunks--;
            shares.remove(c.worldSrc(), c.message().payload().byteSize(), 1);
            earlyBySender.put(c.worldSrc(), earlyBySender.get(c.worldSrc()) - 1); // 0 kept: no entry per chunk
        }
        freed();
    }

    /**
     * Keeps the first abort of an operation not posted yet.
     *
     * @param end the transport it arrived on, named by the error (its rank and world), or null
     * @throws ProtocolException if world rank {@code peer} already has {@link #MAX_EARLY_ABORTS} pending here
     */
    void holdAbort(OpKey key, int peer, Message.CollectiveAbort a, Transport end) {
        lock.lock();
        try {
            if (aborts.containsKey(key)) {
                return;
            }
            int mine = abortsBySender.getOrDefault(peer, 0);
            if (mine >= MAX_EARLY_ABORTS) {
                throw new ProtocolException(InboundRouter.decoding(end, key.comm(), key.seq(), peer), "failed:"
                        + " rank " + peer + " sent more than " + MAX_EARLY_ABORTS + " COLLECTIVE_ABORTs of collective"
                        + " operations not started here (the last: operation " + key.seq() + " of communicator "
                        + key.comm() + "); a member sends one per operation that failed on it, so this many pending is"
                        + " a broken or hostile member");
            }
            aborts.put(key, a);
            abortCount = aborts.size();
            abortSenders.put(key, peer);
            abortsBySender.put(peer, mine + 1);
        } finally {
            lock.unlock();
        }
    }

    /** Removes and returns the early abort of {@code key}, or null; its sender via {@link #abortSender}. */
    Message.CollectiveAbort takeAbort(OpKey key) {
        lock.lock();
        try {
            Message.CollectiveAbort a = aborts.remove(key);
            abortCount = aborts.size();
            return a;
        } finally {
            lock.unlock();
        }
    }

    /** The world rank that sent the abort just taken for {@code key}. */
    int abortSender(OpKey key) {
        lock.lock();
        try {
            int peer = abortSenders.remove(key);
            uncountAbort(peer);
            return peer;
        } finally {
            lock.unlock();
        }
    }

    /** Early aborts held from world rank {@code peer} (for tests and diagnostics). */
    int earlyAborts(int peer) {
        lock.lock();
        try {
            return abortsBySender.getOrDefault(peer, 0);
        } finally {
            lock.unlock();
        }
    }

    private void uncountAbort(int peer) {
        abortsBySender.merge(peer, -1, (a, b) -> a + b == 0 ? null : a + b);
    }

    /** Uncounts a chunk that left the store (applied or dropped). */
    void release(StoredChunk c) {
        lock.lock();
        try {
            long len = c.message().payload().byteSize();
            if (len == 0 || closed) {
                return;
            }
            bytes -= len;
            bySender.put(c.worldSrc(), bySender.get(c.worldSrc()) - len); // 0 kept: no map entry per chunk
            freed();
        } finally {
            lock.unlock();
        }
    }

    /** Drops everything held for communicator {@code comm}. */
    void dropCommunicator(int comm) {
        lock.lock();
        try {
            for (List<StoredChunk> dropped : chunks.removeCommunicator(comm)) {
                dropped.forEach(this::release);
                uncountEarly(dropped);
            }
            aborts.keySet().removeIf(k -> k.comm() == comm);
            abortCount = aborts.size();
            abortSenders.entrySet().removeIf(e -> {
                if (e.getKey().comm() != comm) {
                    return false;
                }
                uncountAbort(e.getValue());
                return true;
            });
        } finally {
            lock.unlock();
        }
    }

    /** Drops everything; later releases are no-ops. */
    void close() {
        lock.lock();
        try {
            closed = true;
            chunks.clear();
            aborts.clear();
            abortCount = 0;
            abortSenders.clear();
            abortsBySender.clear();
            bySender.clear();
            earlyBySender.clear();
            shares.clear();
            earlyChunks = 0;
            bytes = 0;
            freed();
        } finally {
            lock.unlock();
        }
    }
}
