package io.nexar.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.Topology;
import io.nexar.internal.topology.NeighbourGraph;
import io.nexar.internal.topology.RoutingTable;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which growths of a sparse world can work (no new link between members), checked before rank 0 asks the seed. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RelayGrowthTest {

    private static String refusal(Topology t, int n, int[] members, int maxSize) {
        return RelayGrowth.refusal(RoutingTable.of(NeighbourGraph.of(t, n), members[0]), members, maxSize);
    }

    private static int[] upTo(int n) {
        return IntStream.range(0, n).toArray();
    }

    @Test
    void shouldLetARingGrowByAnyNumberOfWorkersAlsoWithHoles() {
        for (int n = 2; n <= 12; n++) {
            assertThat(refusal(Topology.kRegular(2), n, upTo(n), n + 1)).as("ring of %d", n).isNull();
        }
        // world ranks {0, 1, 3} of a ring of 4 (rank 2 gone): admitting rank 4 gives the path 1-0-4-3
        assertThat(refusal(Topology.kRegular(2), 4, new int[] {0, 1, 3}, 4)).isNull();
    }

    @Test
    void shouldLetAHypercubeGrowByDoublingOnly() {
        assertThat(refusal(Topology.HYPERCUBE, 4, upTo(4), 8)).isNull();
        assertThat(refusal(Topology.HYPERCUBE, 4, upTo(4), 7)).isEqualTo("grow() cannot admit workers into this"
                + " world of topology=hypercube: for every size up to world.max.size 7, topology=hypercube cannot be"
                + " built on 5 ranks (a hypercube grows by doubling only); start the job at its final size, or use"
                + " topology=full-mesh or k-regular:2 for a world that grows");
    }

    @Test
    void shouldRefuseAGrowthWhoseChordsWouldLinkMembersThatHoldNoLink() {
        // k-regular:4 on 8: offsets 1 and 3; on 9 ranks the chords 6-0 and 7-1 join members with no link between
        // them; on 10 the only moved chord between members is 7-0, which the ring already links
        assertThat(refusal(Topology.kRegular(4), 8, upTo(8), 9)).contains("the graph of 9 ranks links members that"
                + " hold no link to each other (world ranks 0-6, 1-7), and links between running members are opened"
                + " at formation only");
        assertThat(refusal(Topology.kRegular(4), 8, upTo(8), 10)).isNull();
    }

    @Test
    void shouldSayNothingWhenTheWorldIsAtItsMaximumSize() {
        assertThat(refusal(Topology.HYPERCUBE, 4, upTo(4), 4)).isNull(); // grow() admits nobody and says so
    }
}
