package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.GroupAndDeadlineContract;

/** Groups and per-call deadlines over the in-process transport. */
class InProcessGroupAndDeadlineTest extends GroupAndDeadlineContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return LocalCluster.start(worldSize, config);
    }
}
