package io.nexar.internal.p2p;

import java.util.ArrayList;
import java.util.List;

/**
 * A point-to-point message that has started to arrive. Until a receive is bound to it, its chunks are kept in the
 * unexpected store; afterwards they are copied straight into the receive's buffer, or a large one is written there by
 * the transport as its bytes arrive ({@link ReceiveClaim}). Guarded by its communicator's shard lock ({@link MailShard}).
 */
final class InboundMessage {
    /** World rank of the sender. */
    final int src;
    final long seq;
    final int tag;
    final long totalBytes;
    /** Bytes of the chunks that arrived or are arriving (claimed), checked against {@link #totalBytes}. */
    long receivedBytes;
    /** Of {@link #receivedBytes}, those of claimed chunks whose payload has not been read to its end yet. */
    long pendingBytes;
    /** Chunks held while unmatched: copies of the payloads, with their offsets. */
    final List<StoredChunk> stored = new ArrayList<>(1);
    long storedBytes;
    /** Counted in the mailbox's number of unmatched messages (until a receive takes it). */
    boolean counted;
    PendingReceive boundTo;
    /** Remaining chunks are dropped (the receive failed or timed out part-way). */
    boolean discard;
    /**
     * Position in the order messages became matchable (every earlier message of its sender had started to arrive),
     * 0 before; a wildcard receive takes the matching message with the lowest.
     */
    long matchStamp;

    InboundMessage(int src, long seq, int tag, long totalBytes) {
        this.src = src;
        this.seq = seq;
        this.tag = tag;
        this.totalBytes = totalBytes;
    }

    /** True once every byte arrived (and, for claimed chunks, was written or dropped). */
    boolean complete() {
        return receivedBytes == totalBytes && pendingBytes == 0;
    }

    /** One stored chunk. */
    record StoredChunk(long offset, byte[] bytes) {
    }
}
