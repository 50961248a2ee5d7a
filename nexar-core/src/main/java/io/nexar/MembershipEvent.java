package io.nexar;

import java.util.List;

/**
 * A change of a communicator's membership, reported to the listeners registered with
 * {@link Communicator#watch}. Listeners run on the process's membership thread, one event at a time, never on a
 * transport thread; a listener must not block for long (it delays the next event, not the data path).
 */
public sealed interface MembershipEvent permits MembershipEvent.RankFailed, MembershipEvent.Rebuilt,
        MembershipEvent.Grown, MembershipEvent.Excluded {

    /** {@return the id of the communicator the event is about, as it was when the event happened} */
    int communicator();

    /**
     * A member failed, left or became unreachable; operations that need it fail with a {@link PeerFailedException}.
     *
     * @param communicator the communicator id
     * @param rank the member's rank in that communicator
     * @param worldRank the member's rank in the world communicator it first joined
     * @param why completes "rank N ...", for example {@code sent nothing for 5s (heartbeat timeout 5s)}
     */
    record RankFailed(int communicator, int rank, int worldRank, String why) implements MembershipEvent {
    }

    /**
     * The survivors agreed on the failed members and continue without them, renumbered densely in their old order.
     *
     * @param communicator the old communicator id
     * @param newCommunicator the new communicator id
     * @param generation how many recoveries this communicator's lineage has had, this one included
     * @param failed the old ranks that were removed
     * @param oldToNew for each old rank its new rank, or -1 if it was removed
     * @param rank this process's new rank
     * @param size the new size
     */
    record Rebuilt(int communicator, int newCommunicator, int generation, List<Integer> failed, List<Integer> oldToNew,
                   int rank, int size) implements MembershipEvent {
        /** Copies the lists. */
        public Rebuilt {
            failed = List.copyOf(failed);
            oldToNew = List.copyOf(oldToNew);
        }
    }

    /**
     * The world communicator admitted workers that joined the running cluster ({@link Communicator#grow}); members
     * kept their ranks and the newcomers took the ranks after them.
     *
     * @param communicator the old communicator id
     * @param newCommunicator the new communicator id
     * @param generation how many rebuilds and growths this communicator's lineage has had, this one included
     * @param previousSize the old size
     * @param size the new size
     */
    record Grown(int communicator, int newCommunicator, int generation, int previousSize, int size)
            implements MembershipEvent {
    }

    /**
     * The other members excluded this process (they could not reach it), or too few members remain for any side to
     * continue; every later operation on the communicator fails.
     *
     * @param communicator the communicator id
     * @param why for example {@code was excluded by the survivors (rank 0 listed it as failed)}
     */
    record Excluded(int communicator, String why) implements MembershipEvent {
    }
}
