package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.AllReduceVariantsContract;

/** The allReduceVariants contract in-process on k-regular:2 (every message to a non-neighbour relayed). */
class KRegularAllReduceVariantsTest extends AllReduceVariantsContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return SparseTopologies.ring(worldSize, config);
    }
}
