package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.AllReduceVariantsContract;
import java.net.InetAddress;

/** Bucketed and compressed allReduce on 127.0.0.1 with the default transport (QUIC control, TLS bulk lanes). */
class QuicAllReduceVariantsTest extends AllReduceVariantsContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config, InetAddress.getLoopbackAddress());
    }
}
