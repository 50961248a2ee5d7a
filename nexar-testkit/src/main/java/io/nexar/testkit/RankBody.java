package io.nexar.testkit;

import io.nexar.Communicator;

/**
 * Code run on one rank of a {@link TestCluster}.
 *
 * @param <T> the type of the body's result
 */
@FunctionalInterface
public interface RankBody<T> {
    /**
     * Runs on one rank; may throw anything.
     *
     * @param communicator the rank's world communicator
     * @return the rank's result, collected by {@link TestCluster#onEachRank}
     * @throws Exception anything; the run then fails with a {@link RankFailedException}
     */
    T run(Communicator communicator) throws Exception;
}
