package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.PointToPointContract;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** The point-to-point contract on ::1 with the default transport (TCP lanes for every message). */
class QuicIpv6PointToPointTest extends PointToPointContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        try {
            return QuicTestCluster.start(worldSize, config, InetAddress.getByName("::1"));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected long transportBufferedBytes() {
        return QuicTestCluster.TCP_BUFFERED_BYTES;
    }
}
