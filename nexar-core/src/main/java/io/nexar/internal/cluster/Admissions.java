package io.nexar.internal.cluster;

import io.nexar.internal.transport.Newcomer;
import io.nexar.internal.util.Deadline;
import java.util.List;

/**
 * Where {@link io.nexar.Communicator#grow} finds the workers waiting to join a running cluster: for the QUIC
 * transport, the seed, asked by rank 0 of the world communicator. Implementations are provided by transport modules.
 */
public interface Admissions {

    /**
     * What a newcomer needs to build the grown world communicator, and what the seed needs to describe the members.
     *
     * @param communicator the id the grown world communicator will have
     * @param generation its generation (rebuilds and growths of the world so far, this one included)
     * @param worldRanks the world ranks of the current members, in communicator order
     */
    record Ticket(int communicator, int generation, int[] worldRanks) {
        /** Copies the ranks. */
        public Ticket {
            worldRanks = worldRanks.clone();
        }

        @Override
        public int[] worldRanks() {
            return worldRanks.clone();
        }
    }

    /**
     * Admits up to {@code max} of the workers waiting now (none if nobody waits): they are told their world ranks,
     * the members' addresses and {@code ticket}, and start connecting.
     *
     * @return the admitted workers, in world-rank order
     * @throws io.nexar.ClusterFormationException if the seed cannot be reached or refuses
     */
    List<Newcomer> admit(Ticket ticket, int max, Deadline deadline);
}
