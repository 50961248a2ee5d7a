package io.nexar.testkit;

import io.nexar.Communicator;
import java.util.Map;

/**
 * A running cluster whose ranks a test drives from one JVM: the in-process {@link LocalCluster}, or network
 * transports' clusters of real endpoints on loopback. The transport contract suite runs against this interface.
 */
public interface TestCluster extends AutoCloseable {

    /** The number of ranks. */
    int worldSize();

    /** The world communicator of {@code rank}, for tests that drive ranks from their own threads. */
    Communicator communicator(int rank);

    /**
     * Runs {@code body} on every rank at once and returns the results by rank.
     *
     * @throws RankFailedException if any body threw (cause: the first failure) or the run timed out
     */
    <T> Map<Integer, T> onEachRank(RankBody<T> body);

    /** Runs {@code body} on every rank, for bodies whose result does not matter. */
    default void run(RankBody<?> body) {
        onEachRank(body);
    }

    /** Bytes held in {@code rank}'s store of messages that arrived before their receive was posted. */
    long unexpectedBytes(int rank);

    /** Closes every rank. Idempotent. */
    @Override
    void close();
}
