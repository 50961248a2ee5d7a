package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.PointToPointContract;

/** The point-to-point contract over the in-process transport. */
class InProcessPointToPointTest extends PointToPointContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return LocalCluster.start(worldSize, config);
    }
}
