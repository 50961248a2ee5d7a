package io.nexar.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.Topology;
import io.nexar.internal.topology.NeighbourGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The close tree of a sparse world: shape on several graphs, and no rank released before the last one closed. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CloseTreeTest {

    @Test
    void shouldSpanEveryRankWithNeighbourLinksOnly() {
        for (var g : List.of(NeighbourGraph.of(Topology.kRegular(2), 6), NeighbourGraph.of(Topology.kRegular(3), 9),
                NeighbourGraph.of(Topology.kRegular(4), 40), NeighbourGraph.of(Topology.HYPERCUBE, 16))) {
            int n = g.worldSize();
            int[] seenAsChild = new int[n];
            for (int r = 0; r < n; r++) {
                CloseTree t = CloseTree.of(g, r);
                if (r == 0) {
                    assertThat(t.parent()).isEqualTo(-1);
                } else {
                    assertThat(g.adjacent(r, t.parent())).as("rank %d's parent is a neighbour", r).isTrue();
                    assertThat(g.distance(t.parent(), 0)).isEqualTo(g.distance(r, 0) - 1);
                }
                for (int c : t.children()) {
                    assertThat(g.adjacent(r, c)).isTrue();
                    assertThat(CloseTree.of(g, c).parent()).isEqualTo(r);
                    seenAsChild[c]++;
                }
            }
            for (int r = 1; r < n; r++) {
                assertThat(seenAsChild[r]).as("rank %d is the child of exactly one rank (%s)", r, g.topology())
                        .isEqualTo(1);
            }
        }
        var ring = NeighbourGraph.of(Topology.kRegular(2), 6);
        assertThat(CloseTree.of(ring, 0).children()).containsExactly(1, 5);
        assertThat(CloseTree.of(ring, 3).parent()).isEqualTo(2);
    }

    @Test
    void shouldReleaseNoRankBeforeTheLastOneCloses() throws Exception {
        var g = NeighbourGraph.of(Topology.kRegular(2), 6);
        int n = g.worldSize();
        var trees = new CloseTree[n];
        for (int r = 0; r < n; r++) {
            trees[r] = CloseTree.of(g, r);
        }
        var subtreeOfFiveClosed = new CountDownLatch(1);
        var sent = new ConcurrentLinkedQueue<String>();
        var outcomes = new AtomicReferenceArray<CloseTree.Outcome>(n);
        var threads = new ArrayList<Thread>();
        int last = 3; // the rank farthest from rank 0: it closes last
        for (int r = 0; r < n; r++) {
            if (r != last) {
                threads.add(start(trees, r, sent, outcomes, subtreeOfFiveClosed));
            }
        }
        assertThat(subtreeOfFiveClosed.await(20, TimeUnit.SECONDS)).isTrue();
        for (int r = 0; r < n; r++) {
            assertThat(outcomes.get(r)).as("rank %d was released while rank %d had not closed", r, last).isNull();
        }
        assertThat(sent).noneMatch(s -> s.contains("release"));
        threads.add(start(trees, last, sent, outcomes, subtreeOfFiveClosed));
        for (Thread t : threads) {
            t.join();
        }
        for (int r = 0; r < n; r++) {
            assertThat(outcomes.get(r)).as("rank %d", r).isEqualTo(CloseTree.Outcome.RELEASED);
        }
        assertThat(sent).filteredOn(s -> s.contains("closed")).hasSize(n - 1);
        assertThat(sent).filteredOn(s -> s.contains("release")).hasSize(n - 1);
    }

    private static Thread start(CloseTree[] trees, int rank, ConcurrentLinkedQueue<String> sent,
                                AtomicReferenceArray<CloseTree.Outcome> outcomes, CountDownLatch fiveClosed) {
        return Thread.ofVirtual().name("close-" + rank).start(() -> {
            try {
                outcomes.set(rank, trees[rank].await((to, release) -> {
                    sent.add(rank + " -> " + to + (release ? " release" : " closed"));
                    boolean fits = release ? trees[to].onRelease(rank) : trees[to].onClosed(rank);
                    assertThat(fits).as("%d -> %d fits the tree", rank, to).isTrue();
                    if (rank == 5 && !release) {
                        fiveClosed.countDown();
                    }
                    return true;
                }, System.nanoTime() + TimeUnit.SECONDS.toNanos(20)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @Test
    void shouldRefuseFramesFromRanksOutsideItsPlaceInTheTree() {
        var g = NeighbourGraph.of(Topology.kRegular(2), 6);
        CloseTree two = CloseTree.of(g, 2);
        assertThat(two.onClosed(1)).as("rank 1 is rank 2's parent, not its child").isFalse();
        assertThat(two.onRelease(3)).as("rank 3 is rank 2's child, not its parent").isFalse();
        assertThat(two.onClosed(3)).isTrue();
        assertThat(two.onRelease(1)).isTrue();
    }

    @Test
    void shouldStopWaitingWhenTheParentGoesDownOrTheDeadlinePasses() throws Exception {
        var g = NeighbourGraph.of(Topology.kRegular(2), 6);
        CloseTree three = CloseTree.of(g, 3); // a leaf: tells rank 2, then waits for its release
        var released = new ArrayList<Integer>();
        three.onPeerDown(2);
        assertThat(three.await((to, release) -> released.add(to), System.nanoTime() + TimeUnit.SECONDS.toNanos(20)))
                .isEqualTo(CloseTree.Outcome.PARENT_DOWN);

        CloseTree one = CloseTree.of(g, 1); // rank 2, its child, never closes
        assertThat(one.await((to, release) -> true, System.nanoTime())).isEqualTo(CloseTree.Outcome.TIMED_OUT);
        assertThat(one.openChildren()).containsExactly(2);

        CloseTree zero = CloseTree.of(g, 0);
        zero.onPeerDown(1); // a child that went down counts as closed
        zero.onClosed(5);
        assertThat(zero.await((to, release) -> {
            released.add(to);
            return to != 1;
        }, System.nanoTime() + TimeUnit.SECONDS.toNanos(20))).isEqualTo(CloseTree.Outcome.RELEASED);
        assertThat(released).containsExactly(1, 5);
    }
}
