package io.nexar.internal.collective;

/**
 * An open-addressing table (linear probing, deletion by backward shift) of entries that carry their own key, an
 * operation's (communicator, sequence number): found without a key object or map entry, so a lookup, an insert and a
 * removal allocate nothing once the table has grown to the most entries held at once. {@link ActiveOps} holds the
 * posted operations, {@link EarlyOps} the lists of chunks of operations not posted yet. Not thread-safe: guarded by
 * its communicator's shard lock ({@link CommState#lock}).
 *
 * <p>Iterate with {@link #capacity} and {@link #at} (null for an empty slot); the table must not change meanwhile.
 *
 * @param <T> the entries
 */
abstract class OpTable<T> {
    private Object[] table = new Object[16];
    private int size;

    /** The communicator of {@code entry}'s operation. */
    abstract int commOf(T entry);

    /** The sequence number of {@code entry}'s operation. */
    abstract long seqOf(T entry);

    /** Entries held. */
    final int size() {
        return size;
    }

    /** Slots to iterate over with {@link #at}. */
    final int capacity() {
        return table.length;
    }

    /** The entry in slot {@code i}, or null. */
    @SuppressWarnings("unchecked")
    final T at(int i) {
        return (T) table[i];
    }

    /** The entry of operation {@code seq} of communicator {@code comm}, or null. */
    final T get(int comm, long seq) {
        int mask = table.length - 1;
        for (int i = index(comm, seq, mask); ; i = (i + 1) & mask) {
            T e = at(i);
            if (e == null || seqOf(e) == seq && commOf(e) == comm) {
                return e;
            }
        }
    }

    /** Adds {@code entry} (growing the table when half full). */
    final void put(T entry) {
        if (2 * (size + 1) > table.length) {
            Object[] bigger = new Object[table.length * 2];
            for (int i = 0; i < table.length; i++) {
                T e = at(i);
                if (e != null) {
                    insert(bigger, e);
                }
            }
            table = bigger;
        }
        insert(table, entry);
        size++;
    }

    /**
     * Removes the entry of operation {@code seq} of communicator {@code comm}: {@code only} itself if not null (then
     * an entry with the same key that is not {@code only} stays), else the first with that key.
     *
     * @return the entry removed, or null if there was none
     */
    final T remove(int comm, long seq, T only) {
        int mask = table.length - 1;
        int i = index(comm, seq, mask);
        T found;
        while ((found = at(i)) != null
                && (only != null ? found != only : seqOf(found) != seq || commOf(found) != comm)) {
            i = (i + 1) & mask;
        }
        if (found == null) {
            return null;
        }
        table[i] = null;
        size--;
        // backward shift: move up every entry after the hole that its probe sequence would not find any more
        for (int j = (i + 1) & mask; table[j] != null; j = (j + 1) & mask) {
            T moved = at(j);
            int home = index(commOf(moved), seqOf(moved), mask);
            if (((j - home) & mask) >= ((j - i) & mask)) {
                table[i] = moved;
                table[j] = null;
                i = j;
            }
        }
        return found;
    }

    /** Forgets every entry. */
    final void clear() {
        java.util.Arrays.fill(table, null);
        size = 0;
    }

    private void insert(Object[] t, T entry) {
        int mask = t.length - 1;
        int i = index(commOf(entry), seqOf(entry), mask);
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = entry;
    }

    /** The home slot of operation {@code seq} of communicator {@code comm} in a table of {@code mask + 1} slots. */
    static int index(int comm, long seq, int mask) {
        long h = (seq ^ ((long) comm << 32 | comm)) * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 40) & mask;
    }
}
