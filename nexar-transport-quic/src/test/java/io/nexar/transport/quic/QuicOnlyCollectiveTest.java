package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.CollectiveContract;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import java.net.InetAddress;

/** The collective contract over QUIC alone on 127.0.0.1 (no TCP lanes: every message on QUIC streams). */
class QuicOnlyCollectiveTest extends CollectiveContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config, InetAddress.getLoopbackAddress(), BulkLaneOptions.off());
    }

    /**
     * The matrices on world sizes 2, 3 and 4 (QUIC streams only; see QuicCollectiveTest for why not every size).
     */
    @Override
    protected boolean matrixWorld(int world) {
        return world >= 2 && world <= 4;
    }
}
