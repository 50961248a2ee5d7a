package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.CollectiveContract;
import java.net.InetAddress;

/** The collective contract on 127.0.0.1 with the default transport: QUIC for control, TCP lanes for every message. */
class QuicCollectiveTest extends CollectiveContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config, InetAddress.getLoopbackAddress());
    }
}
