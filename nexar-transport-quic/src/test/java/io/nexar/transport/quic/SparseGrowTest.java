package io.nexar.transport.quic;

import static io.nexar.transport.quic.GrowFixtures.all;
import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.Communicator;
import io.nexar.Growth;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import io.nexar.Topology;
import io.nexar.transport.quic.formation.SeedOptions;
import io.nexar.transport.quic.formation.SeedServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * grow() on a sparse topology over loopback QUIC, through a real seed and {@link QuicTransportProvider}: a ring of
 * four ({@code k-regular:2}) admits a fifth worker, then a sixth. Each growth replaces the ring's closing link (3-0,
 * then 4-0) by links through the newcomer, which only the last member and rank 0 open; every rank of the grown world
 * then reaches every other (relays included) for point-to-point messages and allreduces with checked results. And a
 * hypercube of 2 doubles to 4 at one grow().
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SparseGrowTest {
    private static final Duration JOIN = Duration.ofSeconds(30);

    private static NexarConfig config(boolean elastic) {
        return NexarConfig.builder().ignoreEnvironment().topology(Topology.kRegular(2)).worldMaxSize(6)
                .joinElastic(elastic).p2pTimeout(Duration.ofSeconds(20)).collectiveTimeout(Duration.ofSeconds(20))
                .build();
    }

    @Test
    void shouldGrowARingTwiceAndReachEveryRankOfTheGrownWorld() throws Exception {
        var options = SeedOptions.builder(4).bind("127.0.0.1:0").ca(QuicTestCluster.CA)
                .formationDeadline(Duration.ofSeconds(30)).build();
        var world = new ArrayList<Communicator>();
        try (var seed = SeedServer.start(options)) {
            var joins = new ArrayList<java.util.concurrent.CompletableFuture<Communicator>>();
            for (int i = 0; i < 4; i++) {
                joins.add(GrowFixtures.join(seed.joinString(), config(false), JOIN));
            }
            for (var j : joins) {
                world.add(j.get(40, TimeUnit.SECONDS));
            }
            world.sort(Comparator.comparingInt(Communicator::rank));
            check(world);
            for (int size = 5; size <= 6; size++) {
                var joining = GrowFixtures.join(seed.joinString(), config(true), JOIN);
                var members = List.copyOf(world);
                assertThat(all(members, GrowFixtures::growUntilAdmitted)).containsOnly(
                        new Growth(size - 1, size, false));
                Communicator newcomer = joining.get(40, TimeUnit.SECONDS);
                world.add(newcomer);
                assertThat(newcomer.grow()).isEqualTo(new Growth(size - 1, size, true));
                assertThat(world).extracting(Communicator::rank).containsExactlyElementsOf(
                        java.util.stream.IntStream.range(0, size).boxed().toList());
                check(world);
            }
        } finally {
            all(world, c -> { // at once: a closing rank of a sparse world waits until every rank closed
                c.close();
                return null;
            });
        }
    }

    @Test
    void shouldDoubleAHypercube() throws Exception {
        // a hypercube of 2 (one link) admits two workers at one grow(): world ranks 2 and 3 take the new dimension,
        // each linked to one member (0-2, 1-3) and to each other; the link 0-1 stays
        var options = SeedOptions.builder(2).bind("127.0.0.1:0").ca(QuicTestCluster.CA)
                .formationDeadline(Duration.ofSeconds(30)).build();
        var world = new ArrayList<Communicator>();
        try (var seed = SeedServer.start(options)) {
            var joins = List.of(GrowFixtures.join(seed.joinString(), cube(false), JOIN),
                    GrowFixtures.join(seed.joinString(), cube(false), JOIN));
            for (var j : joins) {
                world.add(j.get(40, TimeUnit.SECONDS));
            }
            world.sort(Comparator.comparingInt(Communicator::rank));
            var joining = List.of(GrowFixtures.join(seed.joinString(), cube(true), JOIN),
                    GrowFixtures.join(seed.joinString(), cube(true), JOIN));
            // both wait at the seed before the members ask: a hypercube grows by doubling only
            io.nexar.testkit.Await.until(() -> seed.waiting() == 2, Duration.ofSeconds(40),
                    "two workers waiting at the seed");
            assertThat(all(List.copyOf(world), c -> c.grow())).containsOnly(new Growth(2, 4, false));
            for (var j : joining) {
                Communicator newcomer = j.get(40, TimeUnit.SECONDS);
                world.add(newcomer);
            }
            assertThat(all(world.subList(2, 4), c -> c.grow())).containsOnly(new Growth(2, 4, true));
            world.sort(Comparator.comparingInt(Communicator::rank));
            check(world);
        } finally {
            all(world, c -> {
                c.close();
                return null;
            });
        }
    }

    private static NexarConfig cube(boolean elastic) {
        return config(elastic).toBuilder().topology(Topology.HYPERCUBE).build();
    }

    /** Every rank sends to every other (neighbour or not), then an allreduce; results checked. */
    private static void check(List<Communicator> world) throws Exception {
        int n = world.size();
        List<long[]> received = all(world, c -> {
            for (int peer = 0; peer < n; peer++) {
                if (peer != c.rank()) {
                    c.send(peer, 6, new long[] {c.rank() * 100L + peer});
                }
            }
            long[] from = new long[n];
            for (int peer = 0; peer < n; peer++) {
                if (peer != c.rank()) {
                    long[] one = new long[1];
                    c.recv(peer, 6, one);
                    from[peer] = one[0];
                }
            }
            float[] x = new float[4096];
            java.util.Arrays.fill(x, c.rank() + 1);
            c.allReduce(x, ReduceOp.SUM);
            for (float v : x) {
                assertThat(v).as("allReduce on rank %d of %d", c.rank(), n).isEqualTo(n * (n + 1) / 2f);
            }
            return from;
        });
        for (int r = 0; r < n; r++) {
            for (int peer = 0; peer < n; peer++) {
                if (peer != r) {
                    assertThat(received.get(r)[peer]).as("rank %d from rank %d in a world of %d", r, peer, n)
                            .isEqualTo(peer * 100L + r);
                }
            }
        }
    }
}
