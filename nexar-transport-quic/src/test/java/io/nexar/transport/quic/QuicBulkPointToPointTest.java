package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.PointToPointContract;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import java.net.InetAddress;

/**
 * The point-to-point contract with a TLS bulk lane whose threshold is 20 KiB: the contract's larger messages travel
 * on TCP, the rest on QUIC. (Below 16 KiB the contract's back-pressure case would fail by design: TCP's socket buffers
 * hold more than its store bound; {@link QuicBulkLaneTest} checks the bulk lane's own bound, and mixes both paths.)
 */
class QuicBulkPointToPointTest extends PointToPointContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config, InetAddress.getLoopbackAddress(),
                new BulkLaneOptions(BulkLaneOptions.Mode.TLS, 20 << 10));
    }
}
