package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.PointToPointContract;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import java.net.InetAddress;

/** The point-to-point contract over QUIC alone on 127.0.0.1 (no TCP lanes: every message on QUIC streams). */
class QuicPointToPointTest extends PointToPointContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config, InetAddress.getLoopbackAddress(), BulkLaneOptions.off());
    }
}
