package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.CollectiveByteBufferContract;
import java.net.InetAddress;

/** The ByteBuffer forms of gather, scatter and allToAll on 127.0.0.1 with the default transport. */
class QuicCollectiveByteBufferTest extends CollectiveByteBufferContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config, InetAddress.getLoopbackAddress());
    }
}
