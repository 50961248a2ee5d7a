package io.nexar.internal.collective;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * {@code split(color, key)}: who joins which new communicator, and the new communicator's id, agreed by every member
 * without a coordinator (docs/collectives.md, "Communicators").
 *
 * <ol>
 *   <li>An allGather over the parent of every rank's (color, key). Each rank with color &gt;= 0 computes its new
 *       group alike: the parent ranks of its colour ordered by (key, parent rank), as world ranks.</li>
 *   <li>The id candidate is a hash of (parent id, sequence number of that allGather on the parent, colour,
 *       attempt): every member computes the same one, siblings (other colours) and later splits of the same parent
 *       get different ones.</li>
 *   <li>Each rank reserves the candidate in its process ({@link CollectiveEngine#reserveId}); an allReduce(MAX) over
 *       the parent of "this id is already used here" makes the outcome common: on any collision every rank retries
 *       with attempt + 1. Ids are never reused on a process, so no stale state can be mistaken for the new
 *       communicator's.</li>
 * </ol>
 */
public final class Splits {
    /** Gives up after this many colliding candidates (a collision is a ~1e-9 event per split). */
    static final int MAX_ATTEMPTS = 64;

    private Splits() {
    }

    /**
     * Splits {@code parent}'s communicator (collective over it).
     *
     * @return this rank's new group, or null if {@code color} is negative (this rank joins no communicator)
     */
    public static Group split(Collectives parent, CollectiveEngine engine, int color, int key) {
        Group pg = parent.group();
        int n = pg.size();
        int[] all = new int[2 * n];
        long seq = parent.allGatherSeq(MemorySegment.ofArray(new int[] {color, key}), MemorySegment.ofArray(all),
                DataType.I32, 2);
        Group mine = null;
        if (color >= 0) {
            List<Integer> members = new ArrayList<>();
            for (int j = 0; j < n; j++) {
                if (all[2 * j] == color) {
                    members.add(j);
                }
            }
            members.sort(Comparator.<Integer>comparingInt(j -> all[2 * j + 1]).thenComparingInt(j -> j));
            int[] world = members.stream().mapToInt(pg::world).toArray();
            mine = new Group(-1, members.indexOf(pg.rank()), world);
        }
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            int id = deriveId(pg.id(), seq, color, attempt);
            int[] collided = {mine != null && !engine.reserveId(id) ? 1 : 0};
            MemorySegment flag = MemorySegment.ofArray(collided);
            parent.allReduce(flag, flag, DataType.I32, 1, ReduceOp.MAX);
            if (collided[0] == 0) {
                return mine == null ? null : new Group(id, mine.rank(), mine.worldRanks());
            }
        }
        throw new IllegalStateException("split of communicator " + pg.id() + " found no free id in " + MAX_ATTEMPTS
                + " attempts");
    }

    /** The id candidate for colour {@code color} of the split with sequence {@code seq} of communicator parent. */
    public static int deriveId(int parent, long seq, int color, int attempt) {
        long h = mix(mix(mix(((long) parent << 32 ^ seq) + 0x9E3779B97F4A7C15L) ^ color) + attempt);
        int id = (int) (h ^ (h >>> 32)) & Integer.MAX_VALUE;
        return id == 0 ? 1 : id;
    }

    /** SplitMix64's finaliser. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
