package io.nexar.internal.collective;

import java.util.ArrayList;
import java.util.List;

/**
 * The early chunks of the operations not posted yet, found by (communicator, sequence number) without a key object
 * or map entry per operation: an open-addressing table (linear probing, deletion by backward shift, as
 * {@link ActiveOps}) of the operations' lists of chunks themselves, each keyed by its first chunk (a list held here is
 * never empty). Holding the chunks of a new operation and taking them at its post allocate nothing once the table
 * has grown to the most operations held at once. Part of an {@link EarlyStore}, under its engine's lock.
 */
final class EarlyOps {
    private List<StoredChunk>[] table = newTable(16);
    private int size;

    /** True if no operation has chunks here. */
    boolean isEmpty() {
        return size == 0;
    }

    /** The chunks of operation {@code seq} of communicator {@code comm}, or null. */
    List<StoredChunk> get(int comm, long seq) {
        int mask = table.length - 1;
        for (int i = ActiveOps.index(comm, seq, mask); ; i = (i + 1) & mask) {
            List<StoredChunk> l = table[i];
            if (l == null || is(l, comm, seq)) {
                return l;
            }
        }
    }

    /** Adds {@code chunks} (not empty), the first chunks of an operation that has none here yet. */
    void put(List<StoredChunk> chunks) {
        if (2 * (size + 1) > table.length) {
            List<StoredChunk>[] bigger = newTable(table.length * 2);
            for (List<StoredChunk> l : table) {
                if (l != null) {
                    insert(bigger, l);
                }
            }
            table = bigger;
        }
        insert(table, chunks);
        size++;
    }

    /** Removes and returns the chunks of operation {@code seq} of communicator {@code comm}, or null. */
    List<StoredChunk> remove(int comm, long seq) {
        int mask = table.length - 1;
        int i = ActiveOps.index(comm, seq, mask);
        List<StoredChunk> found;
        while ((found = table[i]) != null && !is(found, comm, seq)) {
            i = (i + 1) & mask;
        }
        if (found == null) {
            return null;
        }
        table[i] = null;
        size--;
        // backward shift: move up every entry after the hole that its probe sequence would not find any more
        for (int j = (i + 1) & mask; table[j] != null; j = (j + 1) & mask) {
            List<StoredChunk> moved = table[j];
            int home = home(moved, mask);
            if (((j - home) & mask) >= ((j - i) & mask)) {
                table[i] = moved;
                table[j] = null;
                i = j;
            }
        }
        return found;
    }

    /** Removes and returns the chunk lists of every operation of communicator {@code comm}. */
    List<List<StoredChunk>> removeCommunicator(int comm) {
        List<List<StoredChunk>> of = new ArrayList<>();
        for (List<StoredChunk> l : table) {
            if (l != null && l.getFirst().message().communicator() == comm) {
                of.add(l);
            }
        }
        for (List<StoredChunk> l : of) {
            remove(comm, l.getFirst().message().opSeq());
        }
        return of;
    }

    /** Drops everything. */
    void clear() {
        java.util.Arrays.fill(table, null);
        size = 0;
    }

    private static boolean is(List<StoredChunk> chunks, int comm, long seq) {
        var m = chunks.getFirst().message();
        return m.opSeq() == seq && m.communicator() == comm;
    }

    private static int home(List<StoredChunk> chunks, int mask) {
        var m = chunks.getFirst().message();
        return ActiveOps.index(m.communicator(), m.opSeq(), mask);
    }

    private static void insert(List<StoredChunk>[] t, List<StoredChunk> chunks) {
        int mask = t.length - 1;
        int i = home(chunks, mask);
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = chunks;
    }

    @SuppressWarnings("unchecked")
    private static List<StoredChunk>[] newTable(int capacity) {
        return new List[capacity];
    }
}
