package io.nexar.internal.collective;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The {@link CommState}s of a {@link CollectiveEngine} by communicator id: found by every arriving chunk without a
 * lock or a key object (an open-addressing table read through one volatile reference), added under this table's
 * monitor by copying (communicators are created rarely; an id is never removed, since ids are never reused).
 *
 * <p>The monitor also orders a chunk or abort of a communicator that has no state here yet against that state's
 * creation: such a message is kept in the early store under the monitor ({@link CollectiveEngine#onMessage}), and a
 * post creates the state under it before it looks in the store, so the post either finds the message there or the
 * message finds the state.
 */
final class CommTable {
    /** Slots (power-of-two length), at most half full; null for an empty one. */
    private volatile CommState[] slots = new CommState[16];
    private int size;

    /** The state of communicator {@code id}, or null if it has none here yet. No lock. */
    CommState get(int id) {
        CommState[] t = slots;
        int mask = t.length - 1;
        for (int i = index(id, mask); ; i = (i + 1) & mask) {
            CommState cs = t[i];
            if (cs == null || cs.id == id) {
                return cs;
            }
        }
    }

    /** The state of communicator {@code id}, created if it has none yet. */
    CommState getOrCreate(int id) {
        CommState cs = get(id);
        return cs != null ? cs : create(id);
    }

    private synchronized CommState create(int id) {
        CommState cs = get(id);
        if (cs != null) {
            return cs;
        }
        cs = new CommState(id);
        CommState[] old = slots;
        CommState[] t = new CommState[2 * (size + 1) > old.length ? old.length * 2 : old.length];
        for (CommState e : old) {
            if (e != null) {
                insert(t, e);
            }
        }
        insert(t, cs);
        size++;
        slots = t; // published whole: readers see the old table or the new one
        return cs;
    }

    /** Every state, by id (a snapshot: states created later are not in it). */
    CommState[] all() {
        return Arrays.stream(slots).filter(java.util.Objects::nonNull)
                .sorted(Comparator.comparingInt(cs -> cs.id)).toArray(CommState[]::new);
    }

    private static void insert(CommState[] t, CommState cs) {
        int mask = t.length - 1;
        int i = index(cs.id, mask);
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = cs;
    }

    private static int index(int id, int mask) {
        return (id * 0x9E3779B9 >>> 16 ^ id * 0x9E3779B9) & mask;
    }
}
