package io.nexar.internal.collective;

import java.util.Arrays;

/**
 * The members of a communicator as world ranks, in communicator-rank order.
 *
 * @param id the communicator id
 * @param rank this process's rank in the communicator
 * @param worldRanks world rank of each communicator rank
 */
public record Group(int id, int rank, int[] worldRanks) {

    /** The world communicator of {@code size} ranks. */
    public static Group world(int rank, int size) {
        int[] all = new int[size];
        Arrays.setAll(all, i -> i);
        return new Group(0, rank, all);
    }

    /** Number of members. */
    public int size() {
        return worldRanks.length;
    }

    /** World rank of communicator rank {@code r}. */
    public int world(int r) {
        return worldRanks[r];
    }

    /** Communicator rank of world rank {@code w}, or -1 if not a member. */
    public int local(int w) {
        for (int i = 0; i < worldRanks.length; i++) {
            if (worldRanks[i] == w) {
                return i;
            }
        }
        return -1;
    }
}
