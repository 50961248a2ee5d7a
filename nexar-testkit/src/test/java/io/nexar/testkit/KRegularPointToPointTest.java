package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.PointToPointContract;

/** The pointToPoint contract in-process on k-regular:2 (every message to a non-neighbour relayed). */
class KRegularPointToPointTest extends PointToPointContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return SparseTopologies.ring(worldSize, config);
    }
}
