package io.nexar.internal.p2p;

import io.nexar.internal.transport.SenderShare;
import io.nexar.internal.util.RoomSignal;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The accounting of a {@link Mailbox}'s unexpected-message store: the bytes and the number of unmatched messages it
 * holds, their bounds, and what each sender holds of them (at most half of either, {@link SenderShare}). The
 * mailbox decides when a chunk is taken in spite of a full store (see its class comment); this class only counts.
 * The chunks themselves stay on their {@link InboundMessage}.
 *
 * <p>Threading and ownership: one per mailbox, shared by its communicators' shards ({@link MailShard}): thread-safe
 * through its own lock, taken inside a shard's lock and never the other way round. An admission check and the count
 * that follows it are two calls, so shards admitting at once may pass the bound together, by at most one message per
 * sender, as the mailbox's own exceptions do. Releasing room (and anything else that may let a refused sender in:
 * {@link #freed}) wakes the refused senders, who wait on {@link #room} holding no shard's lock.
 */
final class UnexpectedStore {
    /** About what the records of one unmatched message cost the heap; the message bound is the byte bound over it. */
    static final long BYTES_PER_MESSAGE = 256;
    /** The message bound of a small store. */
    static final long MIN_STORED_MESSAGES = 4096;

    private final long maxStoredBytes;
    /** Bound of the number of unmatched messages: one per {@link #BYTES_PER_MESSAGE} of the store, at least 4096. */
    private final long maxStoredMessages;
    /** What each sender holds of the store: at most half (see the mailbox's class comment). */
    private final SenderShare shares;
    private final ReentrantLock lock = new ReentrantLock();
    private final RoomSignal room = new RoomSignal();
    private long storedBytes;
    private long storedMessages;

    /**
     * @param maxStoredBytes bound of the store (setting {@code unexpected.max.bytes})
     */
    UnexpectedStore(long maxStoredBytes) {
        this.maxStoredBytes = maxStoredBytes;
        this.maxStoredMessages = Math.max(MIN_STORED_MESSAGES, maxStoredBytes / BYTES_PER_MESSAGE);
        this.shares = new SenderShare("unexpected messages", "its point-to-point lane to this rank waits until they"
                + " are received", maxStoredBytes, maxStoredMessages);
    }

    /** True if the first chunk ({@code len} bytes) of a new message from {@code peer} fits every bound. */
    boolean admitsFirst(int peer, long len) {
        lock.lock();
        try {
            return !(len > 0 && !fits(len) || storedMessages >= maxStoredMessages || !shares.admits(peer, len, 1));
        } finally {
            lock.unlock();
        }
    }

    /** True if a further chunk ({@code len > 0} bytes) of a stored message from {@code peer} fits every bound. */
    boolean admitsMore(int peer, long len) {
        lock.lock();
        try {
            return fits(len) && shares.admits(peer, len, 0);
        } finally {
            lock.unlock();
        }
    }

    /** Records that {@code peer}'s chunk was refused (for its share's report). */
    void refused(int peer, long len, long records) {
        lock.lock();
        try {
            shares.refused(peer, len, records);
        } finally {
            lock.unlock();
        }
    }

    private boolean fits(long len) {
        return storedBytes == 0 || storedBytes + len <= maxStoredBytes;
    }

    /** Counts {@code m} as unmatched until {@link #release} (a receive takes it or its communicator closes). */
    void count(InboundMessage m) {
        lock.lock();
        try {
            m.counted = true;
            storedMessages++;
            shares.add(m.src, 0, 1);
        } finally {
            lock.unlock();
        }
    }

    /** Counts {@code len} bytes of {@code m} copied into the store. */
    void addBytes(InboundMessage m, long len) {
        lock.lock();
        try {
            m.storedBytes += len;
            storedBytes += len;
            shares.add(m.src, len, 0);
        } finally {
            lock.unlock();
        }
    }

    /** Releases what {@code m} holds of the store (its record and its bytes), signalling the freed room. */
    void release(InboundMessage m) {
        lock.lock();
        try {
            if (m.counted) {
                m.counted = false;
                storedMessages--;
                shares.remove(m.src, 0, 1);
                room.freed();
            }
            if (m.storedBytes > 0) {
                storedBytes -= m.storedBytes;
                shares.remove(m.src, m.storedBytes, 0);
                m.storedBytes = 0;
                room.freed();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Where refused senders wait for room. */
    RoomSignal room() {
        return room;
    }

    /** Something other than a release may let a refused sender in (a receive posted, a probe, a failure): wakes them. */
    void freed() {
        room.freed();
    }

    /** Forgets everything held (the mailbox closed and dropped its messages). */
    void clear() {
        lock.lock();
        try {
            storedBytes = 0;
            storedMessages = 0;
            shares.clear();
        } finally {
            lock.unlock();
        }
    }

    long storedBytes() {
        lock.lock();
        try {
            return storedBytes;
        } finally {
            lock.unlock();
        }
    }

    long storedMessages() {
        lock.lock();
        try {
            return storedMessages;
        } finally {
            lock.unlock();
        }
    }

    /** Unmatched messages of world rank {@code sender} held. */
    long storedMessagesFrom(int sender) {
        lock.lock();
        try {
            return shares.records(sender);
        } finally {
            lock.unlock();
        }
    }
}
