package io.nexar.internal.collective;

import java.util.Arrays;

/**
 * Receive slots of later rounds that chunks were applied to ahead of their round ({@link ReceiveAhead}), by key (round,
 * sender: {@code OpState.aheadKey}): a few at most, so parallel arrays searched in order (no boxed keys, no map nodes),
 * reused by the operation's next use. Owned by one {@link OpState}, guarded by its communicator's shard lock ({@link
 * CommState#lock}).
 */
final class AheadSlots {
    private long[] keys = new long[2];
    private Slot[] slots = new Slot[2];
    private int n;

    Slot get(long key) {
        for (int i = 0; i < n; i++) {
            if (keys[i] == key) {
                return slots[i];
            }
        }
        return null;
    }

    void put(long key, Slot slot) {
        if (n == keys.length) {
            keys = Arrays.copyOf(keys, 2 * n);
            slots = Arrays.copyOf(slots, 2 * n);
        }
        keys[n] = key;
        slots[n++] = slot;
    }

    /** Removes and returns the slot of {@code key}, or null. */
    Slot remove(long key) {
        for (int i = 0; i < n; i++) {
            if (keys[i] == key) {
                Slot s = slots[i];
                keys[i] = keys[--n];
                slots[i] = slots[n];
                slots[n] = null;
                return s;
            }
        }
        return null;
    }

    void clear() {
        Arrays.fill(slots, 0, n, null);
        n = 0;
    }
}
