package io.nexar.internal.collective;

import java.util.ArrayList;
import java.util.List;

/**
 * The early chunks of the operations not posted yet, found by (communicator, sequence number) without a key object or
 * map entry per operation: an {@link OpTable} (as {@link ActiveOps}) of the operations' lists of chunks themselves,
 * each keyed by its first chunk (a list held here is never empty). Holding the chunks of a new operation and taking
 * them at its post allocate nothing once the table has grown to the most operations held at once. Part of an {@link
 * EarlyStore}, under its communicator's shard lock, or the {@link io.nexar.internal.util.ShardTable}'s monitor for a communicator with no shard
 * yet.
 */
final class EarlyOps extends OpTable<List<StoredChunk>> {

    @Override
    int commOf(List<StoredChunk> chunks) {
        return chunks.getFirst().message().communicator();
    }

    @Override
    long seqOf(List<StoredChunk> chunks) {
        return chunks.getFirst().message().opSeq();
    }

    /** True if no operation has chunks here. */
    boolean isEmpty() {
        return size() == 0;
    }

    /**
     * Takes the chunks of operation {@code seq} of communicator {@code comm}.
     *
     * @return them, or null if there were none
     */
    List<StoredChunk> remove(int comm, long seq) {
        return remove(comm, seq, null);
    }

    /** Removes and returns the chunk lists of every operation of communicator {@code comm}. */
    List<List<StoredChunk>> removeCommunicator(int comm) {
        List<List<StoredChunk>> of = new ArrayList<>();
        for (int i = 0; i < capacity(); i++) {
            List<StoredChunk> l = at(i);
            if (l != null && l.getFirst().message().communicator() == comm) {
                of.add(l);
            }
        }
        for (List<StoredChunk> l : of) {
            remove(comm, l.getFirst().message().opSeq());
        }
        return of;
    }
}
