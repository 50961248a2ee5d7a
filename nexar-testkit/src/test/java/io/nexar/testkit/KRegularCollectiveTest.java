package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.CollectiveContract;

/** The collective contract in-process on k-regular:2 (every message to a non-neighbour relayed). */
class KRegularCollectiveTest extends CollectiveContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return SparseTopologies.ring(worldSize, config);
    }

    /**
     * The matrices on sizes 1, 5 and 9 (one rank; a ring with non-neighbours; the largest): relaying does not depend
     * on each size, and each cluster costs.
     */
    @Override
    protected boolean matrixWorld(int world) {
        return world == 1 || world == 5 || world == 9;
    }
}
