package io.nexar.transport.quic;

import io.nexar.NexarConfig;
import io.nexar.Topology;
import io.nexar.testkit.TestCluster;
import io.nexar.testkit.contract.CollectiveContract;
import java.net.InetAddress;

/**
 * The collective contract on 127.0.0.1 with {@code topology=k-regular:2}: each rank links to its two ring neighbours
 * only (QUIC and TCP lanes), every other message goes through relays.
 */
class QuicKRegularCollectiveTest extends CollectiveContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return QuicTestCluster.start(worldSize, config.toBuilder().topology(Topology.kRegular(2)).build(),
                InetAddress.getLoopbackAddress());
    }

    /**
     * The matrices on size 5 only (every rank has non-neighbours; the in-process suite covers the others): relaying
     * does not depend on each size, and each cluster costs.
     */
    @Override
    protected boolean matrixWorld(int world) {
        return world == 5;
    }
}
