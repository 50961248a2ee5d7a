package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.GroupAndDeadlineContract;

/** The groupAndDeadline contract in-process on hypercube (k-regular:3 on world sizes that are not powers of two). */
class HypercubeGroupAndDeadlineTest extends GroupAndDeadlineContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return SparseTopologies.hypercube(worldSize, config);
    }
}
