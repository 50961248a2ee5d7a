package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.RecoveryPolicy;
import io.nexar.ReduceOp;
import io.nexar.Topology;
import io.nexar.internal.protocol.AgreeKind;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.RelayTransport;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The orders of events around a recovery's bridges that looping {@link RelayTransportTest} under load found
 * (docs/failure-model.md, "Bridges"), each injected here in the order that failed: a rank learns of a second death
 * (and finds ranks cut off) after the decision on the first was taken but before it applied it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RelayBridgeRaceTest {

    /** A ring of {@code n} under policy manual: the test applies the decision itself, in the order it wants. */
    private static LocalCluster ring(int n) {
        var config = NexarConfig.builder().ignoreEnvironment().topology(Topology.kRegular(2))
                .p2pTimeout(Duration.ofSeconds(10)).collectiveTimeout(Duration.ofSeconds(10))
                .recoveryPolicy(RecoveryPolicy.MANUAL).recoveryTimeout(Duration.ofSeconds(8)).build();
        return LocalCluster.start(n, config, Duration.ofSeconds(45));
    }

    @Test
    void shouldForgetACutOffFoundBeforeTheDecisionWhoseBridgeReachesItAgainWasApplied() {
        // a ring of 8: a decision excludes rank 3 (its bridge links 2 and 4), but before rank 2 applies it, rank 1
        // dies too, and rank 2, whose routes still know only the ring, finds ranks 0 and 4-7 cut off and reports them
        // down. Then rank 2 applies the decision: the bridge 2-4 reaches them again. Before, rank 2 still suspected
        // them: its next agreement listed them failed (the others, merging it, lost their quorum: "only 3 of 7
        // ranks remain reachable"), and its receive sides refused them. Now every part forgets the stale report:
        // the six shrink alike and run a collective
        int n = 8;
        try (var cluster = ring(n)) {
            cluster.crash(3);
            cluster.crash(1);
            var two = (RelayTransport) cluster.transport(2);
            assertThat(two.routes().deadRanks()).containsExactly(0, 1, 3, 4, 5, 6, 7);
            var applied = new CyclicBarrier(6); // the six survivors: each applies the decision before any shrinks
            Map<Integer, String> results = cluster.onEachRank(c -> {
                int world = c.rank();
                if (world == 1 || world == 3) {
                    return "crashed";
                }
                ((RelayTransport) cluster.transport(world)).rebuilt(r -> r != 3); // the decision on rank 3 alone
                applied.await(30, TimeUnit.SECONDS);
                Communicator survivors = c.shrink(); // the next agreement: rank 1
                float[] x = {world + 1};
                survivors.allReduce(x, ReduceOp.SUM);
                return "size " + survivors.worldSize() + " sum " + x[0];
            });
            for (int a : new int[] {0, 2, 4, 5, 6, 7}) {
                assertThat(results.get(a)).as("world rank %d", a).isEqualTo("size 6 sum " + (1f + 3 + 5 + 6 + 7 + 8));
            }
            assertThat(two.routes().deadRanks()).containsExactly(1, 3);
            assertThat(two.routes().nextHop(0)).isEqualTo(4); // 2-4-5-6-7-0, over the bridge
        }
    }

    @Test
    void shouldHoldAnAgreementFrameRoutedOverABridgeUntilThisRankAppliesTheDecisionThenCheckItAgain() throws Exception {
        // a ring of 8 without ranks 1 and 3: ranks 2 and 4 applied a decision on rank 3 (bridge 2-4) and rank 2's
        // agreement frames to rank 7 take 2-4-5-6-7. Rank 7 has not applied it: on its ring, rank 2's frames never
        // come through rank 6. Before, it dropped them and the agreement timed out; now it holds them (the recovery
        // protocol's only) and checks them again once its own routes switch: then they pass, while a frame that no
        // route of either graph explains is still dropped
        try (var cluster = ring(8)) {
            cluster.crash(3);
            cluster.crash(1);
            var relay7 = (RelayTransport) cluster.transport(7);
            var router7 = cluster.endpoint(7).router();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            var agree = RelayTransportTest.frame(new Message.Agree(0x5eed, 1, AgreeKind.PROPOSE, new int[] {1, 3},
                    null, new int[0]));
            assertThat(router7.deliverWaiting(6, new Message.Relay(2, 7, 4, 8, agree), deadline)).isTrue();
            assertThat(router7.deliverWaiting(0, new Message.Relay(5, 7, 1, 8, agree), deadline)).isTrue(); // forged
            assertThat(relay7.droppedFrames()).as("both held, neither dropped yet").isZero();
            relay7.rebuilt(r -> r != 3); // the decision reaches rank 7 (no link of its own to open)
            Await.until(() -> relay7.droppedFrames() > 0, Duration.ofSeconds(10), "the held frames checked again");
            assertThat(relay7.droppedFrames()).as("the forged one only").isEqualTo(1);
        }
    }

    @Test
    void shouldRouteAFrameAroundTheNeighbourItCameFromRatherThanBounceIt() throws Exception {
        // a ring of 8: every survivor applied a decision on rank 1 (bridge 0-2); then rank 3 dies, and only rank 5
        // applies the next decision (bridges 0-2 and 2-4). For rank 2, rank 4 still routes 4-5-6-7-0-2 and rank 5
        // routes 5-4-2 (over a bridge rank 4 has not opened). Before, rank 5 sent rank 4's frame back after a wait of
        // 1 s, rank 4 did the same, and the frame bounced until its hop limit dropped it (in-process on the thread
        // that sent it, which in a recovery could be the one that would switch rank 4's routes). Now rank 5 takes
        // its route around rank 4, 5-6-7-0-2
        try (var cluster = ring(8)) {
            cluster.crash(1);
            var threads = new java.util.ArrayList<Thread>();
            for (int r : new int[] {0, 2, 3, 4, 5, 6, 7}) { // 0 and 2 open their link together
                var relay = (RelayTransport) cluster.transport(r);
                threads.add(Thread.ofVirtual().start(() -> relay.rebuilt(w -> w != 1)));
            }
            for (Thread t : threads) {
                assertThat(t.join(Duration.ofSeconds(20))).isTrue();
            }
            cluster.crash(3);
            var relay5 = (RelayTransport) cluster.transport(5);
            relay5.rebuilt(w -> w != 1 && w != 3); // no link of its own to open
            assertThat(relay5.routes().nextHop(2)).isEqualTo(4);
            assertThat(((RelayTransport) cluster.transport(4)).routes().nextHop(2)).isEqualTo(5);
            var data = RelayTransportTest.frame(new Message.Data(0, 9, 0, 4, 0,
                    java.lang.foreign.MemorySegment.ofArray(new byte[] {1, 2, 3, 4})));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            assertThat(cluster.endpoint(5).router().deliverWaiting(4, new Message.Relay(4, 2, 1, 7, data), deadline))
                    .isTrue();
            byte[] got = new byte[4];
            cluster.communicator(2).recv(4, 9, got);
            assertThat(got).containsExactly(1, 2, 3, 4);
        }
    }
}
