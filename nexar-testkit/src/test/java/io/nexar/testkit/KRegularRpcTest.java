package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.RpcContract;

/** The rpc contract in-process on k-regular:2 (every message to a non-neighbour relayed). */
class KRegularRpcTest extends RpcContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return SparseTopologies.ring(worldSize, config);
    }
}
