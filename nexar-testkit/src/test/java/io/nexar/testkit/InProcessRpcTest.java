package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.RpcContract;

/** The RPC contract over the in-process transport. */
class InProcessRpcTest extends RpcContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return LocalCluster.start(worldSize, config);
    }
}
