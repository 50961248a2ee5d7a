package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.Topology;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.RpcContract;
import java.net.InetAddress;

/**
 * The rpc contract on 127.0.0.1 with {@code topology=k-regular:2}: each rank links to its two ring neighbours
 * only (QUIC and TCP lanes), every other message goes through relays.
 */
class QuicKRegularRpcTest extends RpcContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config.toBuilder().topology(Topology.kRegular(2)).build(),
                InetAddress.getLoopbackAddress());
    }
}
