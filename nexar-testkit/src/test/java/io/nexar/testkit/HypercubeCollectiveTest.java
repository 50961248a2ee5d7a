package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.CollectiveContract;

/** The collective contract in-process on hypercube (k-regular:3 on world sizes that are not powers of two). */
class HypercubeCollectiveTest extends CollectiveContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return SparseTopologies.hypercube(worldSize, config);
    }
}
