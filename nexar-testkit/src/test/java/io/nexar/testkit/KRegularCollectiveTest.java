package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.CollectiveContract;

/** The collective contract in-process on k-regular:2 (every message to a non-neighbour relayed). */
class KRegularCollectiveTest extends CollectiveContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return SparseTopologies.ring(worldSize, config);
    }
}
