package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.PointToPointHangContract;
import java.net.InetAddress;

/** Hang reports of blocked point-to-point calls, over QUIC on 127.0.0.1. */
class QuicPointToPointHangTest extends PointToPointHangContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config, InetAddress.getLoopbackAddress());
    }

    /** More than QUIC's flow-control windows and the lane's buffers hold while rank 1 reads nothing. */
    @Override
    protected long blockedSendBytes() {
        return 16L << 20;
    }
}
