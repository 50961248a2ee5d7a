package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.GroupAndDeadlineContract;
import java.net.InetAddress;

/** Groups and per-call deadlines on 127.0.0.1 with the default transport (QUIC control, TCP lanes). */
class QuicGroupAndDeadlineTest extends GroupAndDeadlineContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config, InetAddress.getLoopbackAddress());
    }
}
