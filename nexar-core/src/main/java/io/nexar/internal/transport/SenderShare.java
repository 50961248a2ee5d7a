package io.nexar.internal.transport;

import io.nexar.internal.config.Units;
import java.util.Arrays;
import java.util.BitSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sender's share of a bounded store of messages nobody asked for yet (the point-to-point mailbox's unexpected
 * messages, the collective engine's chunks of operations not started here): no sender may hold more than half of the
 * store's bytes or records, so a member that floods (a bug, or a hostile member) fills its own half and the other ranks
 * keep the rest. A sender that holds nothing is always admitted, so every sender can make progress. A sender refused
 * for its share is named at WARN ({@link #refused}) once, until it holds nothing again.
 *
 * <p>Not thread-safe: guarded by its owner's lock.
 */
public final class SenderShare {
    private static final Logger LOG = LoggerFactory.getLogger(SenderShare.class);
    /** A sender may hold at most the store's bounds divided by this. */
    public static final long DIVISOR = 2;

    private final String what;
    private final String waits;
    private final long storeBytes;
    private final long storeRecords;
    private final long maxBytes;
    private final long maxRecords;
    /** Per sender (indexed by world rank, grown on demand: no boxing on the message path): bytes and records held. */
    private long[] heldBytes = new long[8];
    private long[] heldRecords = new long[8];
    /** Senders named at WARN since they last held nothing. */
    private final BitSet named = new BitSet();

    /**
     * @param what what the store holds, for the warning ("unexpected messages")
     * @param waits what waits while a sender is at its share ("its point-to-point lane to this rank waits until they
     *        are received")
     * @param storeBytes the store's byte bound (setting {@code unexpected.max.bytes})
     * @param storeRecords the store's record bound
     */
    public SenderShare(String what, String waits, long storeBytes, long storeRecords) {
        this.what = what;
        this.waits = waits;
        this.storeBytes = storeBytes;
        this.storeRecords = storeRecords;
        this.maxBytes = storeBytes / DIVISOR;
        this.maxRecords = storeRecords / DIVISOR;
    }

    /**
     * Whether {@code sender} may store {@code bytes} and {@code records} more: true if it holds nothing or stays
     * within its share.
     *
     * @param sender the sender's world rank
     * @param bytes the bytes it would add
     * @param records the records (messages, chunks) it would add
     * @return true if within its share
     */
    public boolean admits(int sender, long bytes, long records) {
        if (sender < 0 || sender >= heldBytes.length) {
            return true;
        }
        long b = heldBytes[sender];
        long r = heldRecords[sender];
        return b == 0 && r == 0 || b + bytes <= maxBytes && r + records <= maxRecords;
    }

    /**
     * The store refused {@code sender} what it would add: names it at WARN if its share was the reason, once until
     * it holds nothing again.
     *
     * @param sender the sender's world rank
     * @param bytes the bytes it would have added
     * @param records the records it would have added
     */
    public void refused(int sender, long bytes, long records) {
        if (admits(sender, bytes, records) || named.get(sender)) {
            return;
        }
        named.set(sender);
        LOG.warn("rank {} holds {} {} ({}) on this rank, its share: half of the store (setting"
                + " unexpected.max.bytes = {}, {} records): {}; the other ranks keep the other half", sender,
                heldRecords[sender], what, Units.formatSize(heldBytes[sender]), Units.formatSize(storeBytes), storeRecords, waits);
    }

    /**
     * Counts what {@code sender} stored.
     *
     * @param sender the sender's world rank
     * @param bytes bytes stored
     * @param records records stored
     */
    public void add(int sender, long bytes, long records) {
        if (bytes == 0 && records == 0 || sender < 0) {
            return;
        }
        if (sender >= heldBytes.length) {
            int n = Math.max(sender + 1, 2 * heldBytes.length);
            heldBytes = Arrays.copyOf(heldBytes, n);
            heldRecords = Arrays.copyOf(heldRecords, n);
        }
        heldBytes[sender] += bytes;
        heldRecords[sender] += records;
    }

    /**
     * Uncounts what left the store.
     *
     * @param sender the sender's world rank
     * @param bytes bytes released
     * @param records records released
     */
    public void remove(int sender, long bytes, long records) {
        if (sender < 0 || sender >= heldBytes.length) {
            return;
        }
        heldBytes[sender] -= bytes;
        heldRecords[sender] -= records;
        if (heldBytes[sender] <= 0 && heldRecords[sender] <= 0) {
            heldBytes[sender] = 0;
            heldRecords[sender] = 0;
            named.clear(sender);
        }
    }

    /** Forgets everything (the store was emptied). */
    public void clear() {
        Arrays.fill(heldBytes, 0);
        Arrays.fill(heldRecords, 0);
        named.clear();
    }

    /**
     * Records {@code sender} holds now.
     *
     * @param sender the sender's world rank
     * @return its records held
     */
    public long records(int sender) {
        return sender < 0 || sender >= heldRecords.length ? 0 : heldRecords[sender];
    }

    /**
     * Bytes {@code sender} holds now.
     *
     * @param sender the sender's world rank
     * @return its bytes held
     */
    public long bytes(int sender) {
        return sender < 0 || sender >= heldBytes.length ? 0 : heldBytes[sender];
    }
}
