package io.nexar.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.Topology;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Routes: shortest, loop-free, the same rule on every rank, around dead ranks, and the relay's source check. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RoutingTableTest {

    @Test
    void shouldReachEveryDestinationAlongAShortestPath() {
        for (Topology t : new Topology[] {Topology.kRegular(2), Topology.kRegular(3), Topology.kRegular(4),
                Topology.HYPERCUBE}) {
            for (int n : new int[] {2, 4, 6, 8, 16, 33, 64}) {
                if (t.kind() == Topology.Kind.HYPERCUBE && Integer.bitCount(n) != 1) {
                    continue;
                }
                var g = NeighbourGraph.of(t, n);
                var tables = new RoutingTable[n];
                for (int r = 0; r < n; r++) {
                    tables[r] = RoutingTable.of(g, r);
                }
                for (int s = 0; s < n; s++) {
                    for (int d = 0; d < n; d++) {
                        if (s == d) {
                            continue;
                        }
                        int at = s;
                        int hops = 0;
                        while (at != d) {
                            int next = tables[at].nextHop(d);
                            assertThat(g.adjacent(at, next)).as("%s n=%d %d->%d at %d", t, n, s, d, at).isTrue();
                            assertThat(tables[next].mayForward(s, at, hops + 1)).isTrue();
                            at = next;
                            hops++;
                        }
                        assertThat(hops).isEqualTo(g.distance(s, d));
                    }
                }
            }
        }
    }

    @Test
    void shouldRouteAroundADeadHop() {
        var g = NeighbourGraph.of(Topology.kRegular(2), 6); // the ring 0-1-2-3-4-5-0
        var table = RoutingTable.of(g, 0);
        assertThat(table.nextHop(2)).isEqualTo(1);
        assertThat(table.nextHop(3)).isEqualTo(1); // both ways are 3 hops: the lower neighbour wins
        var around = table.withDead(1);
        assertThat(around.nextHop(2)).isEqualTo(5);
        assertThat(around.nextHop(3)).isEqualTo(5);
        assertThat(around.nextHop(1)).isEqualTo(-1);
        assertThat(around.primaryNextHop(2)).isEqualTo(1);
        assertThat(around.withDead(4).nextHop(2)).as("both ways cut").isEqualTo(-1);
        assertThat(around.withDead(1)).isSameAs(around);
    }

    @Test
    void shouldForwardOnlyForSourcesUpstreamOfTheNeighbour() {
        var g = NeighbourGraph.of(Topology.HYPERCUBE, 8);
        var relay = RoutingTable.of(g, 3); // neighbours 1, 2, 7
        assertThat(relay.mayForward(1, 1, 1)).isTrue();
        assertThat(relay.mayForward(0, 1, 2)).as("0 -> 1 -> 3").isTrue();
        assertThat(relay.mayForward(0, 2, 2)).as("0 -> 2 -> 3").isTrue();
        assertThat(relay.mayForward(4, 7, 3)).as("4 -> 5 -> 7 -> 3").isTrue();
        assertThat(relay.mayForward(6, 1, 2)).as("1 is farther from 6 than 3 is").isFalse();
        assertThat(relay.mayForward(5, 2, 2)).as("2 is farther from 5 than 3 is").isFalse();
        assertThat(relay.mayForward(3, 1, 2)).as("nobody relays this rank's own frames to it").isFalse();
        assertThat(relay.mayForward(0, 4, 3)).as("4 is not a neighbour").isFalse();

        var ring = RoutingTable.of(NeighbourGraph.of(Topology.kRegular(2), 6), 2);
        assertThat(ring.mayForward(5, 1, 3)).as("5 -> 0 -> 1 -> 2, as long as 5 -> 4 -> 3 -> 2").isTrue();
        assertThat(ring.mayForward(4, 1, 2)).as("4 -> 5 -> 0 -> 1 -> 2 is no shortest path").isFalse();
        assertThat(ring.mayForward(4, 1, 4)).as("a detour claimed: 4 links, the shortest path is 2").isTrue();
        assertThat(ring.mayForward(3, 1, 2)).as("rank 1 is 2 links from 3: no 2-link path through it").isFalse();
        assertThat(ring.withDead(3).mayForward(4, 1, 4)).isTrue();
    }
}
