package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.ProtocolException;
import io.nexar.RecoveryPolicy;
import io.nexar.ReduceOp;
import io.nexar.Topology;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.protocol.MessageType;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.topology.NeighbourGraph;
import io.nexar.internal.transport.RelayTransport;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Relays on a sparse in-process topology: only neighbours are reached directly, routes around a dead hop, checks. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RelayTransportTest {

    private static NexarConfig ring() {
        return NexarConfig.builder().ignoreEnvironment().topology(Topology.kRegular(2))
                .p2pTimeout(Duration.ofSeconds(20)).collectiveTimeout(Duration.ofSeconds(20)).build();
    }

    /** {@code n} ranks on a ring under recovery policy automatic. */
    private static LocalCluster automaticRing(int n) {
        var config = ring().toBuilder().recoveryPolicy(RecoveryPolicy.AUTOMATIC)
                .recoveryTimeout(Duration.ofSeconds(20)).build();
        return LocalCluster.start(n, config, Duration.ofSeconds(45));
    }

    /**
     * One rank's part in a crash-and-resync run: {@code steps} allreduces of (world rank + 1), each result checked
     * against {@code expected} of the world size it ran at (unchecked where that gives null). The rank crashes at the
     * step {@code crashesAt} names for its world rank at the start (a rebuild renumbers ranks): "crashed". On a
     * failed step it resyncs with the survivors and goes on, or, with {@code diesOnFailure}, crashes; a rank whose
     * recovery fails exits as a process does (a QUIC rank also closes its world when it gives up: a survivor that
     * had linked to it before must not wait for it) and returns why.
     *
     * @return "size N" (the world size it finished at), "crashed", or the message of its failed recovery
     */
    private static String resyncingAllReduces(LocalCluster cluster, Communicator c, int steps,
                                              BiPredicate<Integer, Integer> crashesAt, boolean diesOnFailure,
                                              IntFunction<Float> expected) {
        int world = c.rank();
        float[] x = new float[1];
        for (int i = 0; i < steps; i++) {
            if (crashesAt.test(world, i)) {
                cluster.crash(world);
                return "crashed";
            }
            x[0] = world + 1;
            int size = c.worldSize();
            try {
                c.allReduce(x, ReduceOp.SUM);
            } catch (io.nexar.PeerFailedException e) {
                if (diesOnFailure) { // its step failed on another's crash: it dies all the same
                    cluster.crash(world);
                    return "crashed";
                }
                try {
                    i = Resync.step(c, i) - 1;
                } catch (io.nexar.PeerFailedException lost) { // this rank's recovery failed: it is out
                    cluster.crash(world);
                    return lost.getMessage();
                }
                continue;
            }
            Float want = expected.apply(size);
            if (want != null) {
                assertThat(x[0]).as("world rank %d step %d size %d", world, i, size).isEqualTo(want);
            }
        }
        return "size " + c.worldSize();
    }

    @Test
    void shouldReachOnlyNeighboursDirectlyAndRelayEverythingElse() {
        int n = 6;
        try (var cluster = LocalCluster.start(n, ring())) {
            cluster.run(c -> {
                for (int peer = 0; peer < n; peer++) {
                    if (peer != c.rank()) {
                        c.send(peer, 5, new int[] {c.rank() * 100 + peer});
                    }
                }
                for (int peer = 0; peer < n; peer++) {
                    if (peer != c.rank()) {
                        int[] got = new int[1];
                        c.recv(peer, 5, got);
                        assertThat(got[0]).isEqualTo(peer * 100 + c.rank());
                    }
                }
                float[] x = {c.rank()};
                c.allReduce(x, ReduceOp.SUM);
                assertThat(x[0]).isEqualTo(15f);
                return null;
            });
            var graph = NeighbourGraph.of(Topology.kRegular(2), n);
            for (int r = 0; r < n; r++) {
                var relay = (RelayTransport) cluster.transport(r);
                for (int p = 0; p < n; p++) {
                    if (p != r) {
                        assertThat(relay.usedLinkTo(p)).as("rank %d reached rank %d directly", r, p)
                                .isEqualTo(graph.adjacent(r, p));
                    }
                }
            }
        }
    }

    @Test
    void shouldRefuseAHypercubeOnSixRanksAtFormation() {
        var config = NexarConfig.builder().ignoreEnvironment().topology(Topology.HYPERCUBE).build();
        assertThatThrownBy(() -> LocalCluster.start(6, config).close()).isInstanceOf(ClusterFormationException.class)
                .hasMessageContaining("topology=hypercube").hasMessageContaining("6 ranks");
    }

    @Test
    void shouldRouteAroundADeadHopAndKeepOrder() throws Exception {
        var config = ring().toBuilder().recoveryPolicy(RecoveryPolicy.MANUAL).build();
        try (var cluster = LocalCluster.start(6, config)) {
            var relay0 = (RelayTransport) cluster.transport(0);
            assertThat(relay0.routes().nextHop(2)).isEqualTo(1);
            cluster.crash(1);
            assertThat(relay0.routes().nextHop(2)).as("around the dead hop: 0-5-4-3-2").isEqualTo(5);
            var sender = Thread.ofVirtual().start(() -> {
                for (int i = 0; i < 50; i++) {
                    cluster.communicator(0).send(2, 3, new long[] {i});
                }
            });
            long[] got = new long[1];
            for (int i = 0; i < 50; i++) {
                cluster.communicator(2).recv(0, 3, got);
                assertThat(got[0]).as("message %d in order", i).isEqualTo(i);
            }
            sender.join();
            assertThat(((RelayTransport) cluster.transport(5)).usedLinkTo(4)).isTrue();
        }
    }

    @Test
    void shouldPassAFailureOnToEveryRankThroughTheNeighbourLinks() {
        var config = ring().toBuilder().recoveryPolicy(RecoveryPolicy.MANUAL).build();
        try (var cluster = LocalCluster.start(6, config)) {
            // only rank 2 loses rank 1 (its link alone): ranks 3, 4, 5 and 0 hear of it hop by hop (2-3-4-5-0), each
            // from the neighbour that heard it before, not through relays
            cluster.suspect(2, 1, "failed (test fault)");
            for (int r : new int[] {3, 4, 5, 0}) {
                var relay = (RelayTransport) cluster.transport(r);
                Await.until(() -> relay.routes().isDead(1), Duration.ofSeconds(10),
                        "rank " + r + " knows rank 1 failed");
            }
            for (int r : new int[] {0, 2, 3, 4, 5}) {
                assertThat(((RelayTransport) cluster.transport(r)).usedLinkTo(1)).as("rank %d never wrote to rank 1", r)
                        .isFalse();
            }
        }
    }

    @Test
    void shouldRebuildTheSameRoutesOnEverySurvivorUnderAutomatic() {
        int n = 6;
        try (var cluster = automaticRing(n)) {
            Map<Integer, String> results = cluster.onEachRank(c -> resyncingAllReduces(cluster, c, 8,
                    (world, i) -> world == 1 && i == 3, false, size -> size == n ? 21f : 19f));
            // the ring with rank 1's hole bridged: ranks 0 and 2 opened a link
            var graph = NeighbourGraph.of(Topology.kRegular(2), n).bridged(r -> r == 1);
            assertThat(graph.adjacent(0, 2)).isTrue();
            for (int a : new int[] {0, 2, 3, 4, 5}) {
                assertThat(results.get(a)).isEqualTo("size 5");
                var routes = ((RelayTransport) cluster.transport(a)).routes();
                for (int r = 0; r < n; r++) {
                    assertThat(routes.isDead(r)).as("rank %d's view of rank %d", a, r).isEqualTo(r == 1);
                }
                for (int b : new int[] {0, 2, 3, 4, 5}) { // every route: the bridged ring's links only, around rank 1
                    int at = a;
                    for (int hops = 0; at != b; hops++) {
                        assertThat(hops).as("route %d to %d", a, b).isLessThan(n);
                        int next = ((RelayTransport) cluster.transport(at)).routes().nextHop(b);
                        assertThat(graph.adjacent(at, next)).as("hop %d-%d of route %d to %d", at, next, a, b).isTrue();
                        assertThat(next).as("route %d to %d", a, b).isNotEqualTo(1);
                        at = next;
                    }
                }
            }
        }
    }

    @Test
    void shouldExcludeARankCutOffByTheDeathOfBothItsNeighboursAndNameItSo() {
        // a ring of 8: ranks 1 and 3 die at once, so rank 2 is alive but has no link left. Recovery bridges holes only
        // between ranks that still reach each other (no route carries the decision to rank 2): the five ranks that
        // still reach each other (a majority) go on without it, and rank 2, cut off from every other rank, fails its
        // recovery with an error that says so. If one recovery decides on rank 1 alone before rank 3's death is known
        // everywhere, its bridge 0-2 keeps rank 2 in, and the six go on
        int n = 8;
        try (var cluster = automaticRing(n)) {
            Map<Integer, String> results = cluster.onEachRank(c -> resyncingAllReduces(cluster, c, 6,
                    (world, i) -> (world == 1 || world == 3) && i == 3, c.rank() == 1 || c.rank() == 3,
                    size -> switch (size) { // every rank, the five or the six that go on
                        case 8 -> 36f;
                        case 6 -> 30f;
                        case 5 -> 27f;
                        default -> null;
                    }));
            boolean bridged = results.get(2).equals("size 6");
            System.out.println("RelayTransportTest: rank 2 " + (bridged ? "kept by the bridge 0-2" : "cut off"));
            for (int a : new int[] {0, 4, 5, 6, 7}) {
                assertThat(results.get(a)).as("world rank %d", a).isEqualTo(bridged ? "size 6" : "size 5");
                var routes = ((RelayTransport) cluster.transport(a)).routes();
                assertThat(routes.cutOff()).as("world rank %d", a).isEmpty();
                if (bridged) {
                    assertThat(routes.deadRanks()).as("world rank %d", a).containsExactly(1, 3);
                } else {
                    assertThat(routes.deadRanks()).as("world rank %d", a).containsExactly(1, 2, 3);
                }
            }
            if (bridged) {
                return;
            }
            // which of the others rank 2 had found cut off when too few were left depends on timing: not all five.
            // In-process only, a survivor's exclusion notice can still reach rank 2 first (the fabric links every
            // pair; over a network rank 2 has no link left): then it was told it was excluded. So it is when rank 2
            // had learnt a decision on rank 1 alone (and linked to rank 0) but the others found it cut off before
            // they had: their next agreement excludes it
            if (results.get(2).contains("this rank was excluded: rank ")) {
                assertThat(results.get(2)).contains("rank 2 was excluded by the survivors");
                return;
            }
            if (results.get(2).contains("this rank was excluded by the survivors")) {
                return;
            }
            assertThat(results.get(2)).containsPattern("recovery needs more than half of them; of those, world ranks"
                    + " \\[[0, 4-7]+\\] may be alive but are cut off from this rank: every path to them over the"
                    + " topology's links passes a failed rank, and recovery bridges a hole only between ranks that"
                    + " still reach each other");
        }
    }

    @Test
    void shouldKeepRoutingAroundAMemberKnownDeadWhenTheWorldIsRebuilt() {
        // a ring of 8: ranks 1 and 3 crash, every rank hears of both, and rank 6 finds rank 2 cut off. Then a
        // recovery decides on rank 3 alone (its value was fixed before rank 1's death was known; the next recovery
        // removes rank 1): rebuilt, rank 6 must still route around rank 1. Routed through again, its route to rank 2
        // ran over the formation links 6-7-0-1-2, while rank 7, which knew rank 1 dead, routed to rank 2 over the
        // bridge 2-4 through rank 6: frames bounced between the two until their hop limit dropped them, no send
        // failed to show rank 1's death again, and the next agreement timed out. Rank 2, marked dead only because it
        // was cut off, is routed through again: the bridge reaches it
        int n = 8;
        try (var cluster = LocalCluster.start(n, ring())) {
            cluster.crash(1);
            cluster.crash(3);
            var relay = (RelayTransport) cluster.transport(6);
            assertThat(relay.routes().deadRanks()).containsExactly(1, 2, 3);
            relay.rebuilt(r -> r != 3);
            var routes = relay.routes();
            assertThat(routes.deadRanks()).containsExactly(1, 3);
            assertThat(routes.cutOff()).isEmpty();
            assertThat(routes.nextHop(2)).isEqualTo(5); // 6-5-4-2, over the bridge 2-4
            assertThat(routes.nextHop(0)).isEqualTo(7);
        }
    }

    @Test
    void shouldBridgeTheHoleOfADeathSoThatASecondDeathCutsNobodyOff() {
        // a ring of 6 under automatic: rank 1 dies, the five rebuild over the ring with the hole bridged (0 and 2 open
        // a link); then rank 3 dies, which without that link would leave rank 2 with no live neighbour. Now the four
        // survivors rebuild (2 and 4 open a link: a ring of 0, 2, 4, 5) and finish their checked allreduces
        int n = 6;
        try (var cluster = automaticRing(n)) {
            Map<Integer, String> results = cluster.onEachRank(c -> resyncingAllReduces(cluster, c, 8,
                    (world, i) -> (world == 1 && i == 2) || (world == 3 && i == 5), false, size -> switch (size) {
                        case 6 -> 21f;
                        case 5 -> 19f;
                        default -> 1f + 3f + 5f + 6f;
                    }));
            for (int a : new int[] {0, 2, 4, 5}) {
                assertThat(results.get(a)).as("world rank %d", a).isEqualTo("size 4");
                var routes = ((RelayTransport) cluster.transport(a)).routes();
                assertThat(routes.deadRanks()).as("world rank %d", a).containsExactly(1, 3);
                assertThat(routes.cutOff()).as("world rank %d", a).isEmpty();
                // the survivors' ring: each rank's neighbours among them are the two next to it
                int[] ring = {0, 2, 4, 5};
                int at = java.util.Arrays.binarySearch(ring, a);
                assertThat(routes.nextHop(ring[(at + 1) % 4])).as("world rank %d", a).isEqualTo(ring[(at + 1) % 4]);
                assertThat(routes.nextHop(ring[(at + 3) % 4])).as("world rank %d", a).isEqualTo(ring[(at + 3) % 4]);
            }
        }
    }

    @Test
    void shouldRefuseGrowOnEveryMemberWhenNoGrowthOfTheTopologyCouldWork() {
        // a hypercube grows by doubling only: four ranks with world.max.size 6 cannot grow, refused on every member
        // before rank 0 asks for waiting workers; a ring can always grow (here nobody waits: an in-process cluster
        // has no seed), and grow() changes nothing
        var cube = NexarConfig.builder().ignoreEnvironment().topology(Topology.HYPERCUBE).worldMaxSize(6).build();
        try (var cluster = LocalCluster.start(4, cube)) {
            Map<Integer, String> refused = cluster.onEachRank(c -> {
                try {
                    c.grow();
                    return "grew";
                } catch (UnsupportedOperationException e) {
                    return e.getMessage();
                }
            });
            assertThat(refused.values()).hasSize(4).allSatisfy(m -> assertThat(m).isEqualTo("grow() cannot admit"
                    + " workers into this world of topology=hypercube: for every size up to world.max.size 6,"
                    + " topology=hypercube cannot be built on 5 ranks (a hypercube grows by doubling only); start the"
                    + " job at its final size, or use topology=full-mesh or k-regular:2 for a world that grows"));
            cluster.run(c -> { // the world is unchanged and works
                float[] x = {1};
                c.allReduce(x, ReduceOp.SUM);
                assertThat(x[0]).isEqualTo(4f);
                return null;
            });
        }
        try (var cluster = LocalCluster.start(6, ring())) {
            assertThat(cluster.onEachRank(c -> c.grow()).values()).hasSize(6)
                    .containsOnly(new io.nexar.Growth(6, 6, false));
        }
    }

    @Test
    void shouldRefuseForgedEnvelopesAndDeliverLegitimateOnesAsFromTheirOrigin() throws Exception {
        try (var cluster = LocalCluster.start(6, ring())) {
            var router2 = cluster.endpoint(2).router();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            MemorySegment inner = frame(new Message.Data(0, 9, 0, 4, 0, MemorySegment.ofArray(new byte[] {1, 2, 3, 4})));
            var relay2 = (RelayTransport) cluster.transport(2);
            // rank 3 is farther from rank 0 than rank 2 is, and claims no detour: dropped, not delivered
            assertThat(router2.deliverWaiting(3, new Message.Relay(0, 2, 1, 5, inner), deadline)).isTrue();
            assertThat(relay2.droppedFrames()).isEqualTo(1);
            assertThatThrownBy(() -> router2.deliverWaiting(4, new Message.Relay(0, 2, 1, 5, inner), deadline))
                    .isInstanceOf(ProtocolException.class).hasMessageContaining("not a neighbour of rank 2");
            assertThat(router2.deliverWaiting(1, new Message.Relay(0, 3, 5, 5, inner), deadline)).isTrue();
            assertThat(relay2.droppedFrames()).as("the hop limit").isEqualTo(2);
            assertThatThrownBy(() -> router2.deliverWaiting(1, new Message.Relay(0, 9, 1, 5, inner), deadline))
                    .isInstanceOf(ProtocolException.class).hasMessageContaining("outside the world of 6");
            assertThatThrownBy(() -> frame(new Message.Relay(0, 2, 1, 5, frame(new Message.Relay(0, 2, 1, 5, inner)))))
                    .as("the encoder refuses nesting too").isInstanceOf(IllegalArgumentException.class);
            MemorySegment nested = frame(new Message.Relay(0, 2, 1, 5, inner));
            nested.set(java.lang.foreign.ValueLayout.JAVA_BYTE, WireFormat.RELAY_FRAME_OFFSET + WireFormat.TYPE_OFFSET,
                    (byte) MessageType.RELAY.code()); // the inner frame now claims to be an envelope itself
            assertThatThrownBy(() -> MessageCodec.decode(1, nested, 1 << 20)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("inner frame of type RELAY cannot be relayed");
            // a PEER_TABLE travels in a relay only as a link offer: one entry, the origin's own
            var entry = new io.nexar.internal.protocol.EnrolmentMessage.PeerTable.Entry(3, "member-3",
                    new java.net.InetSocketAddress("127.0.0.1", 7000), null);
            var other = new io.nexar.internal.protocol.EnrolmentMessage.PeerTable.Entry(4, "member-4",
                    new java.net.InetSocketAddress("127.0.0.1", 7001), null);
            MemorySegment notOwn = frame(new io.nexar.internal.protocol.EnrolmentMessage.PeerTable(
                    java.util.List.of(entry, other)));
            assertThatThrownBy(() -> router2.deliverWaiting(1, new Message.Relay(0, 2, 2, 5, notOwn), deadline))
                    .isInstanceOf(ProtocolException.class).hasMessageContaining("is not a link offer of its own");
            // legitimate: 0 -> 1 -> 2, delivered as rank 0's first message with tag 9
            assertThat(router2.deliverWaiting(1, new Message.Relay(0, 2, 2, 5, inner), deadline)).isTrue();
            byte[] got = new byte[4];
            cluster.communicator(2).recv(0, 9, got);
            assertThat(got).containsExactly(1, 2, 3, 4);
            assertThat(relay2.droppedFrames()).as("the dropped copy never reached the mailbox").isEqualTo(2);
        }
    }

    @Test
    void shouldRunEveryCollectiveOnAHypercubeOfEight() {
        var config = ring().toBuilder().topology(Topology.HYPERCUBE).build();
        try (var cluster = LocalCluster.start(8, config)) {
            cluster.run(c -> {
                long[] all = new long[8];
                c.allGather(new long[] {c.rank() * 3L}, all);
                assertThat(all).containsExactly(0, 3, 6, 9, 12, 15, 18, 21);
                double[] v = {1};
                c.allReduce(v, ReduceOp.SUM);
                assertThat(v[0]).isEqualTo(8);
                c.barrier();
                return null;
            });
            for (int r = 0; r < 8; r++) {
                var relay = (RelayTransport) cluster.transport(r);
                int rank = r;
                assertThat(Arrays.stream(new int[] {0, 1, 2, 3, 4, 5, 6, 7}).filter(p -> p != rank
                        && relay.usedLinkTo(p)).boxed().toList()).as("rank %d's direct links", r).isNotEmpty()
                        .isSubsetOf(Arrays.stream(NeighbourGraph.of(Topology.HYPERCUBE, 8).neighbours(r)).boxed()
                                .toList());
            }
        }
    }

    static MemorySegment frame(Message m) {
        var f = MemorySegment.ofArray(new byte[Math.toIntExact(MessageCodec.encodedSize(m))]);
        MessageCodec.encode(m, f);
        return f;
    }
}
