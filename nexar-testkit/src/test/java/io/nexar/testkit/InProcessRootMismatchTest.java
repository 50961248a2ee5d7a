package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.RootMismatchContract;

/** Root mismatches found without verify mode, over the in-process transport. */
class InProcessRootMismatchTest extends RootMismatchContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return LocalCluster.start(worldSize, config);
    }
}
