package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.CollectiveContract;

/** The collective contract in-process on hypercube (k-regular:3 on world sizes that are not powers of two). */
class HypercubeCollectiveTest extends CollectiveContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return SparseTopologies.hypercube(worldSize, config);
    }

    /**
     * The matrices on sizes 1, 4, 8 (hypercubes) and 6 (the k-regular fallback of a size that is not a power of two):
     * relaying does not depend on each size, and each cluster costs.
     */
    @Override
    protected boolean matrixWorld(int world) {
        return world == 1 || world == 4 || world == 8 || world == 6;
    }
}
