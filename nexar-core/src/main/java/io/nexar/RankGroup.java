package io.nexar;

/**
 * The numbering of a {@link Communicator}'s ranks: this process's rank and how many ranks there are. Rank numbers
 * run from 0 to {@link #worldSize()} - 1. The parts of the communicator's API ({@link PointToPointCommunicator},
 * {@link ReducingCollectives}, {@link DataMovementCollectives}, {@link AsyncCollectives}) extend it, as their
 * arguments and results are in this numbering. Programs use {@link Communicator}, which extends them all.
 */
public interface RankGroup {
    /**
     * This process's rank in this communicator.
     *
     * @return this process's rank, in [0, {@link #worldSize()})
     */
    int rank();

    /**
     * The number of ranks in this communicator.
     *
     * @return the number of ranks, at least 1
     */
    int worldSize();
}
