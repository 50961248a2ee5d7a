package io.nexar.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.Topology;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Neighbour graphs: degrees, symmetry, connectivity and the distance formulas, for many world sizes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NeighbourGraphTest {

    @Test
    void shouldGiveEveryRankKNeighboursAndStayConnectedForEveryWorldSize() {
        for (int n = 1; n <= 130; n++) {
            for (int k = 2; k <= 9; k++) {
                var g = NeighbourGraph.of(Topology.kRegular(k), n);
                int expected = k >= n - 1 ? n - 1 : n % 2 == 1 && k % 2 == 1 ? k - 1 : k;
                for (int r = 0; r < n; r++) {
                    assertThat(g.neighbours(r)).as("n=%d k=%d rank %d", n, k, r).hasSize(expected)
                            .doesNotContain(r).isSorted();
                }
                checkSymmetricConnectedAndDistances(g);
            }
        }
    }

    @Test
    void shouldBuildHypercubesOnPowersOfTwo() {
        for (int n = 1; n <= 1024; n *= 2) {
            var g = NeighbourGraph.of(Topology.HYPERCUBE, n);
            for (int r = 0; r < n; r++) {
                assertThat(g.neighbours(r)).hasSize(Integer.numberOfTrailingZeros(n));
            }
            if (n <= 256) {
                checkSymmetricConnectedAndDistances(g);
            }
        }
        assertThat(NeighbourGraph.of(Topology.HYPERCUBE, 8).neighbours(5)).containsExactly(1, 4, 7);
    }

    @Test
    void shouldRefuseAHypercubeOnAWorldThatIsNotAPowerOfTwoAsAFormationError() {
        for (int n : new int[] {3, 6, 12, 100}) {
            assertThatThrownBy(() -> NeighbourGraph.of(Topology.HYPERCUBE, n))
                    .isInstanceOf(ClusterFormationException.class)
                    .hasMessageContaining("topology=hypercube").hasMessageContaining("power of two")
                    .hasMessageContaining("has " + n + " ranks");
        }
    }

    @Test
    void shouldConnectEveryPairInAFullMesh() {
        var g = NeighbourGraph.of(Topology.FULL_MESH, 5);
        assertThat(g.neighbours(2)).containsExactly(0, 1, 3, 4);
        assertThat(g.fullMesh()).isTrue();
        assertThat(g.distance(0, 4)).isEqualTo(1);
    }

    @Test
    void shouldPlaceChordsNearPowersOfTheWorldSize() {
        assertThat(NeighbourGraph.offsets(4096, 4)).containsExactly(1, 64);
        assertThat(NeighbourGraph.offsets(4096, 6)).containsExactly(1, 16, 256);
        assertThat(NeighbourGraph.offsets(6, 3)).containsExactly(1, 3);
        assertThat(NeighbourGraph.offsets(6, 2)).containsExactly(1);
        assertThat(NeighbourGraph.offsets(6, 5)).containsExactly(1, 2, 3);
    }

    @Test
    void shouldBridgeTheHolesOfGoneRanksSoTheSurvivorsStayConnected() {
        // a ring of 6 without rank 1 gains 0-2; without ranks 1 and 3 also 2-4: a ring of the survivors again
        var ring = NeighbourGraph.of(Topology.kRegular(2), 6);
        var one = ring.bridged(r -> r == 1);
        assertThat(one.hasBridges()).isTrue();
        assertThat(one.neighbours(0)).containsExactly(1, 2, 5);
        assertThat(one.neighbours(2)).containsExactly(0, 1, 3);
        assertThat(one.formation().hasBridges()).isFalse();
        var two = one.bridged(r -> r == 1 || r == 3);
        assertThat(two.adjacent(0, 2)).isTrue();
        assertThat(two.adjacent(2, 4)).isTrue();
        assertThat(RoutingTable.of(two, 2, r -> r == 1 || r == 3).cutOff()).isEmpty();
        // neighbouring gone ranks form one hole: 1 and 2 gone, their live neighbours 0 and 3 are linked
        assertThat(ring.bridged(r -> r == 1 || r == 2).neighbours(0)).containsExactly(1, 3, 5);
        assertThat(ring.bridged(r -> false).hasBridges()).isFalse();
        // every topology, random gone sets: the survivors stay connected (seeded; the seed is printed)
        long seed = System.nanoTime();
        System.out.println("NeighbourGraphTest bridging seed " + seed);
        var random = new java.util.Random(seed);
        for (int round = 0; round < 300; round++) {
            int n = 4 + random.nextInt(60);
            var topology = random.nextBoolean() ? Topology.kRegular(2 + random.nextInt(5))
                    : Topology.HYPERCUBE;
            if (topology == Topology.HYPERCUBE) {
                n = Integer.highestOneBit(n);
            }
            boolean[] gone = new boolean[n];
            int self = random.nextInt(n);
            for (int r = 0; r < n; r++) {
                gone[r] = r != self && random.nextInt(3) == 0;
            }
            var bridged = NeighbourGraph.of(topology, n).bridged(r -> gone[r]);
            int[] dist = bridged.distancesFrom(self, gone);
            for (int r = 0; r < n; r++) {
                assertThat(gone[r] || dist[r] >= 0).as("seed %d round %d: %s on %d ranks, %d reaches %d", seed,
                        round, topology, n, self, r).isTrue();
                for (int p : bridged.neighbours(r)) {
                    assertThat(bridged.adjacent(p, r)).as("symmetric %d-%d", r, p).isTrue();
                }
            }
        }
    }

    private static void checkSymmetricConnectedAndDistances(NeighbourGraph g) {
        int n = g.worldSize();
        for (int a = 0; a < n; a++) {
            for (int b : g.neighbours(a)) {
                assertThat(g.neighbours(b)).as("%s n=%d: %d-%d", g.topology(), n, a, b).contains(a);
            }
        }
        for (int a = 0; a < Math.min(n, 7); a++) {
            int[] bfs = g.distancesFrom(a, null);
            assertThat(Arrays.stream(bfs).min().orElse(0)).as("%s n=%d connected", g.topology(), n).isZero();
            for (int b = 0; b < n; b++) {
                assertThat(g.distance(a, b)).as("%s n=%d dist(%d,%d)", g.topology(), n, a, b).isEqualTo(bfs[b]);
            }
        }
    }
}
