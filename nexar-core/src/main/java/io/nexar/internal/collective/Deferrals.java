package io.nexar.internal.collective;

import io.nexar.internal.protocol.Message;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Large chunks that arrived before their operation was posted (or their round could take them), left where the
 * transport decoded them instead of being copied into the {@link EarlyStore}: the engine answers
 * {@link io.nexar.internal.transport.InboundHandler.Delivery#FULL}, the transport keeps the message in its frame buffer
 * and stops reading that peer's lane, and offers it again at the next poll. Once the operation is posted (or the round
 * opens) the chunk is applied straight into its target: no heap copy of it, no second copy out of the store.
 *
 * <p>Why it pays: back to back, a rank often decodes the first chunk of the next operation (or of a later round) in the
 * same read as the last one it waited for; a 256 KiB heap copy per operation was most of what a 1 MiB allreduce
 * allocated. Why it is bounded: the paused lane may carry, behind the chunk, a message that this rank needs first (an
 * operation of another communicator, or an async one, posted in another order on the sender). So a chunk is deferred
 * at most {@link #WINDOW_NANOS}; offered after that, it is stored as before. Order per lane is kept either way.
 *
 * <p>Only chunks from {@link #MIN_BYTES} to {@link #MAX_BYTES} are deferred (copying a small one costs less than
 * pausing the lane; a larger one usually arrives a whole round early, longer than the window),
 * and only on transports whose waiting callers poll their lanes ({@link CollectiveEngine#drivenBy}): an in-process
 * sender would wait for the receiver instead. One per process (a lane carries every communicator's chunks):
 * thread-safe through its own monitor, taken inside a communicator's shard lock, never the other way round.
 */
final class Deferrals {
    /** How long a chunk may wait in its transport's buffer before it is stored after all. */
    static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** Smaller chunks are stored at once. */
    static final long MIN_BYTES = 16 << 10;
    /**
     * Larger chunks are stored at once too: they come in rounds that last longer than the window (a 64 MiB ring's
     * 4 MiB chunks arrive a round ahead, tens of ms early), so waiting would only pause the lane before the copy.
     */
    static final long MAX_BYTES = 1 << 20;

    /** Per sending world rank: the message deferred now (by identity: the transport offers the same one again). */
    private final Map<Integer, Entry> byPeer = new HashMap<>();
    /** Chunks deferred now; volatile so that {@link #taken} and {@link #any} cost no lock when there are none. */
    private volatile int count;
    private long deferred;

    private static final class Entry {
        Message message;
        long since;
    }

    /**
     * True if chunk {@code c} from {@code peer} should stay with the transport for now: it is large enough and, if
     * it was deferred before, its window has not passed. False means: store it now.
     */
    synchronized boolean defer(int peer, Message.Collective c, long now) {
        long bytes = c.payload().byteSize();
        if (bytes < MIN_BYTES || bytes > MAX_BYTES) {
            return false;
        }
        Entry e = byPeer.computeIfAbsent(peer, p -> new Entry());
        if (e.message != c) {
            if (e.message == null) {
                count++;
            }
            e.message = c;
            e.since = now;
            deferred++;
            return true;
        }
        if (now - e.since < WINDOW_NANOS) {
            return true;
        }
        taken(peer);
        return false;
    }

    /** The chunk deferred from {@code peer}, if any, was taken (applied or stored). */
    void taken(int peer) {
        if (count != 0) {
            takenNow(peer);
        }
    }

    private synchronized void takenNow(int peer) {
        Entry e = byPeer.get(peer);
        if (e != null && e.message != null) {
            e.message = null;
            count--;
        }
    }

    /** True if some chunk is deferred now: a post or an opened round should wake the transport's waiting reader. */
    boolean any() {
        return count > 0;
    }

    /**
     * The earliest end, after {@code now}, of a deferral window, or {@link Long#MAX_VALUE} if none: a thread waiting
     * to deliver wakes then to store its chunk. Windows already past are left to their next offer (or to
     * {@link #taken} when the peer is gone).
     */
    synchronized long nextExpiry(long now) {
        long first = Long.MAX_VALUE;
        if (count > 0) {
            for (Entry e : byPeer.values()) {
                long end = e.since + WINDOW_NANOS;
                if (e.message != null && end - now > 0) {
                    first = Math.min(first, end);
                }
            }
        }
        return first;
    }

    /** Chunks deferred so far (diagnostics, tests). */
    synchronized long deferredCount() {
        return deferred;
    }
}
