package io.nexar.testkit;

import io.nexar.NexarConfig;
import io.nexar.Topology;

/**
 * Starts in-process clusters on a sparse topology for the contract suites. The contracts use many world sizes; a
 * hypercube exists only on powers of two, so {@link #hypercube} runs the other sizes on {@code k-regular:3} (and the
 * refusal of a hypercube on them is tested in {@code RelayTransportTest}).
 */
final class SparseTopologies {
    private SparseTopologies() {
    }

    /** {@code k-regular:2}: a ring, the sparsest connected shape (most relays). */
    static LocalCluster ring(int worldSize, NexarConfig config) {
        return LocalCluster.start(worldSize, config.toBuilder().topology(Topology.kRegular(2)).build());
    }

    /** {@code hypercube} on powers of two, {@code k-regular:3} on other sizes. */
    static LocalCluster hypercube(int worldSize, NexarConfig config) {
        Topology t = Integer.bitCount(worldSize) == 1 ? Topology.HYPERCUBE : Topology.kRegular(3);
        return LocalCluster.start(worldSize, config.toBuilder().topology(t).build());
    }
}
