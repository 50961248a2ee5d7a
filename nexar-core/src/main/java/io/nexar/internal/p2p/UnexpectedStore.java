package io.nexar.internal.p2p;

import io.nexar.internal.transport.SenderShare;
import java.util.concurrent.locks.Condition;

/**
 * The accounting of a {@link Mailbox}'s unexpected-message store: the bytes and the number of unmatched messages it
 * holds, their bounds, and what each sender holds of them (at most half of either, {@link SenderShare}). The
 * mailbox decides when a chunk is taken in spite of a full store (see its class comment); this class only counts.
 * The chunks themselves stay on their {@link InboundMessage}.
 *
 * <p>Threading and ownership: owned by one mailbox, whose lock guards every field; every method runs under that lock
 * (this class has none of its own). Releasing room signals the mailbox's condition {@code changed}, on which refused
 * senders and blocking probes wait.
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
    /** The mailbox's condition, signalled when room is freed. */
    private final Condition changed;
    private long storedBytes;
    private long storedMessages;

    /**
     * @param maxStoredBytes bound of the store (setting {@code unexpected.max.bytes})
     * @param changed the mailbox's condition to signal when room is freed
     */
    UnexpectedStore(long maxStoredBytes, Condition changed) {
        this.maxStoredBytes = maxStoredBytes;
        this.maxStoredMessages = Math.max(MIN_STORED_MESSAGES, maxStoredBytes / BYTES_PER_MESSAGE);
        this.shares = new SenderShare("unexpected messages", "its point-to-point lane to this rank waits until they"
                + " are received", maxStoredBytes, maxStoredMessages);
        this.changed = changed;
    }

    /** True if the first chunk ({@code len} bytes) of a new message from {@code peer} fits every bound. */
    boolean admitsFirst(int peer, long len) {
        return !(len > 0 && !fits(len) || storedMessages >= maxStoredMessages || !shares.admits(peer, len, 1));
    }

    /** True if a further chunk ({@code len > 0} bytes) of a stored message from {@code peer} fits every bound. */
    boolean admitsMore(int peer, long len) {
        return fits(len) && shares.admits(peer, len, 0);
    }

    /** Records that {@code peer}'s chunk was refused (for its share's report). */
    void refused(int peer, long len, long records) {
        shares.refused(peer, len, records);
    }

    private boolean fits(long len) {
        return storedBytes == 0 || storedBytes + len <= maxStoredBytes;
    }

    /** Counts {@code m} as unmatched until {@link #release} (a receive takes it or its communicator closes). */
    void count(InboundMessage m) {
        m.counted = true;
        storedMessages++;
        shares.add(m.src, 0, 1);
    }

    /** Counts {@code len} bytes of {@code m} copied into the store. */
    void addBytes(InboundMessage m, long len) {
        m.storedBytes += len;
        storedBytes += len;
        shares.add(m.src, len, 0);
    }

    /** Releases what {@code m} holds of the store (its record and its bytes), signalling the freed room. */
    void release(InboundMessage m) {
        if (m.counted) {
            m.counted = false;
            storedMessages--;
            shares.remove(m.src, 0, 1);
            changed.signalAll();
        }
        if (m.storedBytes > 0) {
            storedBytes -= m.storedBytes;
            shares.remove(m.src, m.storedBytes, 0);
            m.storedBytes = 0;
            changed.signalAll();
        }
    }

    /** Forgets everything held (the mailbox closed and dropped its messages). */
    void clear() {
        storedBytes = 0;
        storedMessages = 0;
        shares.clear();
    }

    long storedBytes() {
        return storedBytes;
    }

    long storedMessages() {
        return storedMessages;
    }

    /** Unmatched messages of world rank {@code sender} held. */
    long storedMessagesFrom(int sender) {
        return shares.records(sender);
    }
}
