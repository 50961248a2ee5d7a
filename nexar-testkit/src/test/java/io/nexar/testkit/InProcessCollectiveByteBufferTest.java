package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.testkit.contract.CollectiveByteBufferContract;

/** The ByteBuffer forms of gather, scatter and allToAll over the in-process transport. */
class InProcessCollectiveByteBufferTest extends CollectiveByteBufferContract {
    @Override
    protected TestCluster start(int worldSize, NexarConfig config) {
        return LocalCluster.start(worldSize, config);
    }
}
