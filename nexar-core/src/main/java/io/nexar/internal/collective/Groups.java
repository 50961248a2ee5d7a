package io.nexar.internal.collective;

import io.nexar.NexarConfig;
import io.nexar.internal.transport.Transport;
import java.util.Arrays;

/**
 * {@code group(ranks)}: a communicator of listed ranks, made by the listed ranks only (MPI's
 * {@code MPI_Comm_create_group}).
 *
 * <ol>
 *   <li>Each listed rank derives the same bootstrap communicator without communicating: the listed ranks in the
 *       listed order, with an id hashed from (parent id, their world ranks, how many {@code group} calls with this
 *       list the caller made on this parent before). Listed ranks make their calls with one list in the same order,
 *       so they agree on the count.</li>
 *   <li>Over the bootstrap communicator they run {@link Splits#split} with one colour and key = position in the
 *       list: the new communicator's id is agreed and collision-checked as for every split.</li>
 *   <li>The bootstrap communicator is closed on this process: its last operation completed here, so every message
 *       of it addressed to this process has arrived.</li>
 * </ol>
 */
public final class Groups {
    private Groups() {
    }

    /**
     * Checks a rank list given to {@code group} on {@code parent}.
     *
     * @return the caller's position in {@code ranks}
     * @throws IllegalArgumentException if {@code ranks} is empty, has a rank out of range or twice, or does not list
     *         the caller
     */
    public static int check(Group parent, int[] ranks) {
        if (ranks.length == 0) {
            throw new IllegalArgumentException(where(parent) + ": group() needs at least one rank");
        }
        boolean[] seen = new boolean[parent.size()];
        int self = -1;
        for (int i = 0; i < ranks.length; i++) {
            int r = ranks[i];
            if (r < 0 || r >= parent.size()) {
                throw new IllegalArgumentException(where(parent) + ": rank " + r + " of group" + list(ranks)
                        + " is out of range [0, " + parent.size() + ")");
            }
            if (seen[r]) {
                throw new IllegalArgumentException(where(parent) + ": rank " + r + " is listed twice in group"
                        + list(ranks));
            }
            seen[r] = true;
            self = r == parent.rank() ? i : self;
        }
        if (self < 0) {
            throw new IllegalArgumentException(where(parent) + ": group" + list(ranks) + " does not list the caller, rank "
                    + parent.rank() + "; only the listed ranks call group()");
        }
        return self;
    }

    /**
     * Makes the communicator of {@code ranks} of {@code parent} (collective over the listed ranks).
     *
     * @param ranks the ranks, already {@link #check checked}
     * @param call how many earlier {@code group} calls with this list this process made on {@code parent}
     * @return this rank's group
     */
    public static Group create(Group parent, int[] ranks, int call, CollectiveEngine engine, Transport transport,
                               NexarConfig config) {
        int self = check(parent, ranks);
        int[] world = Arrays.stream(ranks).map(parent::world).toArray();
        int boot = bootstrapId(parent.id(), world, call);
        if (!engine.reserveId(boot)) {
            throw new IllegalStateException(where(parent) + ": the bootstrap id " + boot + " of group" + list(ranks)
                    + " is already used on this process (a ~1e-9 hash collision); retry the call");
        }
        try {
            // its collectives run for group(): their errors name it
            return Splits.split(new Collectives(engine, transport, config, new Group(boot, self, world))
                    .onBehalfOf(io.nexar.Operation.GROUP), engine, 0, self);
        } finally {
            engine.closeCommunicator(boot, "group() on communicator " + parent.id() + " ended its bootstrap");
        }
    }

    /** The bootstrap communicator's id of the {@code call}-th group of {@code world} (world ranks) on {@code parent}. */
    static int bootstrapId(int parent, int[] world, int call) {
        long h = Splits.mix(((long) parent << 32 ^ call) + 0x632BE59BD9B4E019L);
        for (int w : world) {
            h = Splits.mix(h ^ w);
        }
        int id = (int) (h ^ (h >>> 32)) & Integer.MAX_VALUE;
        return id == 0 ? 1 : id;
    }

    private static String where(Group parent) {
        return "group on rank " + parent.rank() + " (world " + parent.size() + ", comm " + parent.id() + ")";
    }

    private static String list(int[] ranks) {
        return Arrays.toString(ranks).replace('[', '(').replace(']', ')');
    }
}
