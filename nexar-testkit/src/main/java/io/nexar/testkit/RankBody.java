package io.nexar.testkit;

import io.nexar.Communicator;

/** Code run on one rank of a {@link TestCluster}. */
@FunctionalInterface
public interface RankBody<T> {
    /** Runs on one rank; may throw anything. */
    T run(Communicator communicator) throws Exception;
}
