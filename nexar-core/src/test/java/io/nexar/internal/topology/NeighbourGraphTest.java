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
