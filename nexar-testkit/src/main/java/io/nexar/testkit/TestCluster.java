package io.nexar.testkit;

import io.nexar.Communicator;
import java.util.Map;

/**
 * A running cluster whose ranks a test drives from one JVM: the in-process {@link LocalCluster}, or network
 * transports' clusters of real endpoints on loopback. The transport contract suite runs against this interface.
 */
public interface TestCluster extends AutoCloseable {

    /**
     * The number of ranks.
     *
     * @return the number of ranks
     */
    int worldSize();

    /**
     * The world communicator of {@code rank}, for tests that drive ranks from their own threads.
     *
     * @param rank a rank, in [0, worldSize)
     * @return its world communicator
     */
    Communicator communicator(int rank);

    /**
     * Runs {@code body} on every rank at once and returns the results by rank.
     *
     * @param <T> the type of a body's result
     * @param body the code each rank runs with its world communicator
     * @return the body's results by rank
     * @throws RankFailedException if any body threw (cause: the first failure) or the run timed out
     */
    <T> Map<Integer, T> onEachRank(RankBody<T> body);

    /**
     * Runs {@code body} on every rank, for bodies whose result does not matter.
     *
     * @param body the code each rank runs with its world communicator
     */
    default void run(RankBody<?> body) {
        onEachRank(body);
    }

    /**
     * Bytes held in {@code rank}'s store of messages that arrived before their receive was posted.
     *
     * @param rank a rank, in [0, worldSize)
     * @return the bytes held, 0 when every message was received
     */
    long unexpectedBytes(int rank);

    /** Closes every rank. Idempotent. */
    @Override
    void close();
}
