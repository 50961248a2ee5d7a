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
    void shouldNameTheLiveRanksThatTheDeadCutOff() {
        var ring = NeighbourGraph.of(Topology.kRegular(2), 8);
        var fromZero = RoutingTable.of(ring, 0);
        assertThat(fromZero.cutOff()).isEmpty();
        assertThat(fromZero.withDead(1).cutOff()).as("one dead rank on a ring cuts nothing").isEmpty();
        // both neighbours of rank 2 dead: rank 2 is alone, and rank 0 cannot reach it
        assertThat(fromZero.withDead(1).withDead(3).cutOff()).containsExactly(2);
        assertThat(fromZero.withDead(1).withDead(3).deadRanks()).containsExactly(1, 3);
        assertThat(RoutingTable.of(ring, 2).withDead(1).withDead(3).cutOff()).containsExactly(0, 4, 5, 6, 7);
        // a ring cut twice: ranks 2-4 on one side, 6-7-0 on the other
        assertThat(fromZero.withDead(1).withDead(5).cutOff()).containsExactly(2, 3, 4);
        // k-regular:4 on 8 (offsets 1 and 3): two dead ranks never cut it
        var chords = NeighbourGraph.of(Topology.kRegular(4), 8);
        for (int a = 1; a < 8; a++) {
            for (int b = a + 1; b < 8; b++) {
                assertThat(RoutingTable.of(chords, 0).withDead(a).withDead(b).cutOff()).as("dead %d %d", a, b)
                        .isEmpty();
            }
        }
        // a hypercube of 8 (degree 3): all three neighbours of rank 7 dead cut it off
        var cube = NeighbourGraph.of(Topology.HYPERCUBE, 8);
        assertThat(RoutingTable.of(cube, 0).withDead(3).withDead(5).withDead(6).cutOff()).containsExactly(7);
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
