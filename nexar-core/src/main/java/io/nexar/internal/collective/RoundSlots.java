package io.nexar.internal.collective;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The open round's receive slots by sender: a round receives from a few peers at most, so two parallel arrays searched
 * in order, reused from round to round, beat a map (no boxing, no nodes, nothing allocated per round once they have
 * grown to the widest round). Owned by one {@link OpState}, guarded by its communicator's shard lock ({@link
 * CommState#lock}).
 */
final class RoundSlots {
    private int[] peers = new int[2];
    private Slot[] slots = new Slot[2];
    /** Slots owned here, reused from round to round by {@link #claim} (slots {@link #put} are not kept). */
    private Slot[] own = new Slot[2];
    private int n;

    void clear() {
        Arrays.fill(slots, 0, n, null);
        n = 0;
    }

    void put(int peer, Slot slot) {
        if (n == peers.length) {
            peers = Arrays.copyOf(peers, 2 * n);
            slots = Arrays.copyOf(slots, 2 * n);
            own = Arrays.copyOf(own, 2 * n);
        }
        peers[n] = peer;
        slots[n++] = slot;
    }

    /** Drops the targets of the owned slots too (the operation ended; its state is kept for reuse). */
    void forget() {
        clear();
        for (Slot s : own) {
            if (s != null) {
                s.reset(null, null, 0, 0);
            }
        }
    }

    /** Adds the slot of sender {@code peer}: one owned here, reset to the given receive. */
    Slot claim(int peer, Step step, MemorySegment target, long byteOffset, long expectedBytes) {
        int i = n;
        put(peer, null);
        Slot slot = own[i];
        if (slot == null) {
            slot = own[i] = new Slot(step, target, byteOffset, expectedBytes);
        } else {
            slot.reset(step, target, byteOffset, expectedBytes);
        }
        slots[i] = slot;
        return slot;
    }

    /** The slot of sender {@code peer}, or null. */
    Slot get(int peer) {
        for (int i = 0; i < n; i++) {
            if (peers[i] == peer) {
                return slots[i];
            }
        }
        return null;
    }

    int size() {
        return n;
    }

    int peerAt(int i) {
        return peers[i];
    }

    Slot slotAt(int i) {
        return slots[i];
    }
}
