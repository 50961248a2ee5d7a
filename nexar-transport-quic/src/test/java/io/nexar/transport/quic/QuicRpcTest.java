package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.RpcContract;
import java.net.InetAddress;

/** The RPC contract on 127.0.0.1 with the default transport: RPC on its own QUIC lane, data on the TCP lanes. */
class QuicRpcTest extends RpcContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config, InetAddress.getLoopbackAddress());
    }
}
