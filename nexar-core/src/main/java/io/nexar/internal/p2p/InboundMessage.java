package io.nexar.internal.p2p;

import java.util.ArrayList;
import java.util.List;

/**
 * A point-to-point message that has started to arrive. Until a receive is bound to it, its chunks are kept in the
 * unexpected store; afterwards they are copied straight into the receive's buffer. Guarded by the mailbox's lock.
 */
final class InboundMessage {
    final long seq;
    final int tag;
    final long totalBytes;
    long receivedBytes;
    /** Chunks held while unmatched: copies of the payloads, with their offsets. */
    final List<StoredChunk> stored = new ArrayList<>(1);
    long storedBytes;
    PendingReceive boundTo;
    /** Remaining chunks are dropped (the receive failed or timed out part-way). */
    boolean discard;

    InboundMessage(long seq, int tag, long totalBytes) {
        this.seq = seq;
        this.tag = tag;
        this.totalBytes = totalBytes;
    }

    boolean complete() {
        return receivedBytes == totalBytes;
    }

    /** One stored chunk. */
    record StoredChunk(long offset, byte[] bytes) {
    }
}
