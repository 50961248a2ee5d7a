package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.PointToPointHangContract;

/** Hang reports of blocked point-to-point calls, over the in-process transport. */
class InProcessPointToPointHangTest extends PointToPointHangContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return LocalCluster.start(worldSize, config);
    }
}
