package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.GroupAndDeadlineContract;

/** The groupAndDeadline contract in-process on k-regular:2 (every message to a non-neighbour relayed). */
class KRegularGroupAndDeadlineTest extends GroupAndDeadlineContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return SparseTopologies.ring(worldSize, config);
    }
}
