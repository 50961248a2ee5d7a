package io.nexar.internal.collective;

/**
 * The operations posted and not yet ended on one process, found by (communicator, sequence number) without a key
 * object: an open-addressing table (linear probing, deletion by backward shift) of the {@link OpState}s themselves,
 * which carry their communicator and sequence number. A lookup per arriving chunk, an insert per post and a removal
 * per end allocate nothing once the table has grown to the most operations in flight. Guarded by the
 * {@link CollectiveEngine}'s lock (not thread-safe on its own).
 *
 * <p>Iterate with {@link #capacity} and {@link #at} (null for an empty slot); the table must not change meanwhile.
 */
final class ActiveOps {
    private OpState[] table = new OpState[16];
    private int size;

    /** Operations held. */
    int size() {
        return size;
    }

    /** Slots to iterate over with {@link #at}. */
    int capacity() {
        return table.length;
    }

    /** The operation in slot {@code i}, or null. */
    OpState at(int i) {
        return table[i];
    }

    /**
     * Fails every operation held for which {@code failure} gives an exception (null: leave it), passing
     * {@code fromAbort} to {@link OpState#fail}. Failing does not change the table.
     */
    void failEach(java.util.function.Function<OpState, io.nexar.NexarException> failure, boolean fromAbort) {
        for (OpState op : table) {
            io.nexar.NexarException e = op == null ? null : failure.apply(op);
            if (e != null) {
                op.fail(e, fromAbort);
            }
        }
    }

    /** The operation {@code seq} of communicator {@code comm}, or null. */
    OpState get(int comm, long seq) {
        int mask = table.length - 1;
        for (int i = index(comm, seq, mask); ; i = (i + 1) & mask) {
            OpState op = table[i];
            if (op == null) {
                return null;
            }
            if (op.seq == seq && op.group.id() == comm) {
                return op;
            }
        }
    }

    /** Adds {@code op}, which is not held yet (its communicator and sequence number are new). */
    void put(OpState op) {
        if (2 * (size + 1) > table.length) {
            grow();
        }
        insert(table, op);
        size++;
    }

    /** Removes {@code op}; false if it is not held. */
    boolean remove(OpState op) {
        int mask = table.length - 1;
        int i = index(op.group.id(), op.seq, mask);
        while (table[i] != op) {
            if (table[i] == null) {
                return false;
            }
            i = (i + 1) & mask;
        }
        table[i] = null;
        size--;
        // backward shift: move up every entry after the hole that its probe sequence would not find any more
        for (int j = (i + 1) & mask; table[j] != null; j = (j + 1) & mask) {
            OpState moved = table[j];
            int home = index(moved.group.id(), moved.seq, mask);
            if (((j - home) & mask) >= ((j - i) & mask)) {
                table[i] = moved;
                table[j] = null;
                i = j;
            }
        }
        return true;
    }

    private void grow() {
        OpState[] bigger = new OpState[table.length * 2];
        for (OpState op : table) {
            if (op != null) {
                insert(bigger, op);
            }
        }
        table = bigger;
    }

    private static void insert(OpState[] t, OpState op) {
        int mask = t.length - 1;
        int i = index(op.group.id(), op.seq, mask);
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = op;
    }

    static int index(int comm, long seq, int mask) {
        long h = (seq ^ ((long) comm << 32 | comm)) * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 40) & mask;
    }
}
