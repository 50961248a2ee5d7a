package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.AllReduceVariantsContract;

/** Bucketed and compressed allReduce over the in-process transport. */
class InProcessAllReduceVariantsTest extends AllReduceVariantsContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return LocalCluster.start(worldSize, config);
    }
}
