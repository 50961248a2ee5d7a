package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import io.nexar.Topology;
import io.nexar.internal.topology.NeighbourGraph;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Sparse topologies over QUIC on loopback: links to neighbours only, relays for the rest, refusal at formation. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuicSparseTopologyTest {

    private static NexarConfig config(Topology t) {
        return NexarConfig.builder().ignoreEnvironment().topology(t).p2pTimeout(Duration.ofSeconds(20))
                .collectiveTimeout(Duration.ofSeconds(20)).build();
    }

    @Test
    void shouldLinkOnlyNeighboursAndRelayTheRest() {
        int n = 6;
        var graph = NeighbourGraph.of(Topology.kRegular(2), n);
        try (var cluster = QuicTestCluster.start(n, config(Topology.kRegular(2)), InetAddress.getLoopbackAddress())) {
            for (int r = 0; r < n; r++) {
                for (int p = 0; p < n; p++) {
                    if (p != r) {
                        assertThat(cluster.transport(r).link(p) != null).as("rank %d has a link to rank %d", r, p)
                                .isEqualTo(graph.adjacent(r, p));
                    }
                }
            }
            cluster.run(c -> {
                for (int peer = 0; peer < n; peer++) {
                    if (peer != c.rank()) {
                        c.send(peer, 4, new long[] {c.rank() * 10L + peer});
                    }
                }
                for (int peer = 0; peer < n; peer++) {
                    if (peer != c.rank()) {
                        long[] got = new long[1];
                        c.recv(peer, 4, got);
                        assertThat(got[0]).isEqualTo(peer * 10L + c.rank());
                    }
                }
                double[] x = {c.rank()};
                c.allReduce(x, ReduceOp.SUM);
                assertThat(x[0]).isEqualTo(15.0);
                c.barrier();
                return null;
            });
        }
    }

    @Test
    void shouldRefuseAHypercubeOfSixAtFormation() {
        assertThatThrownBy(() -> QuicTestCluster.start(6, config(Topology.HYPERCUBE), InetAddress.getLoopbackAddress())
                .close()).isInstanceOf(ClusterFormationException.class).hasMessageContaining("topology=hypercube")
                .hasMessageContaining("6 ranks");
    }
}
