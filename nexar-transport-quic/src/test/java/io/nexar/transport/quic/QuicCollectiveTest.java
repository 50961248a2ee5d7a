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

    /**
     * The matrices on world sizes 1 to 4 and 7: the in-process suite runs every size for the algorithms; over QUIC
     * what is checked is the transport (lanes, chunking, ordering), which does not depend on each size, and CI has 15
     * minutes.
     */
    @Override
    protected boolean matrixWorld(int world) {
        return world <= 4 || world == 7;
    }
}
