package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.RootMismatchContract;
import java.net.InetAddress;

/** Root mismatches found without verify mode, over QUIC (and its bulk lanes) on 127.0.0.1. */
class QuicRootMismatchTest extends RootMismatchContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config, InetAddress.getLoopbackAddress());
    }
}
