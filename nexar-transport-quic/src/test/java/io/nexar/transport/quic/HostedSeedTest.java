package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import io.nexar.SeedlessLaunch;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.JoinToken;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The launch without a seed process, in one JVM: rank 0 hosts the seed ({@code joinHostingSeed}) and every rank
 * enrols with a token-only join string.
 */
@Timeout(60)
class HostedSeedTest {
    private static final Duration FORMATION = Duration.ofSeconds(30);
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment().build();

    /**
     * Loads the native transport once before the tests: a member binds its listeners before it enrols, and on a
     * loaded machine the first bind in a JVM (loading epoll) took 3 s of the 4 s formation deadline of
     * {@link #shouldRefuseARankWithAnotherTokenAndFailRankZeroAtTheFormationTimeout}, which is about the token.
     */
    @org.junit.jupiter.api.BeforeAll
    static void loadNativeTransport() {
        Listeners.bind(InetAddress.getLoopbackAddress(), io.nexar.PortRange.ANY, true, "port.range").close();
    }

    @Test
    void shouldFormWithRankZeroHostingTheSeedAndAllReduce() throws Exception {
        String js = JoinString.tokenOnly("127.0.0.1", freePort(), JoinToken.generate()).format();
        var provider = new QuicTransportProvider();
        var ranks = new ArrayList<CompletableFuture<Communicator>>();
        for (int r = 0; r < 3; r++) {
            int rank = r;
            ranks.add(CompletableFuture.supplyAsync(() -> rank == 0
                    ? provider.joinHostingSeed(js, 3, CONFIG, FORMATION)
                    : provider.join(js, rank, CONFIG, FORMATION), r2 -> Thread.ofVirtual().start(r2)));
        }
        List<Communicator> world = new ArrayList<>();
        try {
            for (var f : ranks) {
                world.add(f.get(40, TimeUnit.SECONDS));
            }
            var sums = new ArrayList<CompletableFuture<float[]>>();
            for (Communicator c : world) {
                sums.add(CompletableFuture.supplyAsync(() -> {
                    float[] x = {c.rank(), 1};
                    c.allReduce(x, ReduceOp.SUM);
                    return x;
                }, r2 -> Thread.ofVirtual().start(r2)));
            }
            for (int r = 0; r < 3; r++) {
                assertThat(world.get(r).rank()).isEqualTo(r);
                assertThat(sums.get(r).get(20, TimeUnit.SECONDS)).containsExactly(3f, 3f);
            }
        } finally {
            world.forEach(Communicator::close);
        }
    }

    @Test
    void shouldHostTheSeedOnAKernelPickedPortAndTellItBeforeEnrolling() throws Exception {
        String token = SeedlessLaunch.newToken();
        var port = new CompletableFuture<Integer>();
        var provider = new QuicTransportProvider();
        var rank0 = CompletableFuture.supplyAsync(() -> provider.joinHostingSeed(SeedlessLaunch.builder(0, 2)
                .seed("127.0.0.1", 0).token(token).formationTimeout(FORMATION).onSeedListening(port::complete)
                .build(), CONFIG), r -> Thread.ofVirtual().start(r));
        int seedPort = port.get(20, TimeUnit.SECONDS);
        assertThat(seedPort).isPositive();
        var launch1 = SeedlessLaunch.builder(1, 2).seed("127.0.0.1", seedPort).token(token)
                .formationTimeout(FORMATION).build();
        try (Communicator one = provider.join(launch1.joinString(), 1, CONFIG, FORMATION);
             Communicator zero = rank0.get(20, TimeUnit.SECONDS)) {
            var sum = CompletableFuture.supplyAsync(() -> {
                int[] x = {5};
                zero.allReduce(x, ReduceOp.SUM);
                return x[0];
            }, r -> Thread.ofVirtual().start(r));
            int[] x = {7};
            one.allReduce(x, ReduceOp.SUM);
            assertThat(x[0]).isEqualTo(12);
            assertThat(sum.get(20, TimeUnit.SECONDS)).isEqualTo(12);
        }
    }

    @Test
    void shouldRefuseARankWithAnotherTokenAndFailRankZeroAtTheFormationTimeout() throws Exception {
        int port = freePort();
        String good = JoinString.tokenOnly("127.0.0.1", port, JoinToken.generate()).format();
        String bad = JoinString.tokenOnly("127.0.0.1", port, JoinToken.generate()).format();
        var provider = new QuicTransportProvider();
        Duration formation = Duration.ofSeconds(4);
        long start = System.nanoTime();
        var rank0 = CompletableFuture.supplyAsync(() -> provider.joinHostingSeed(good, 2, CONFIG, formation),
                r -> Thread.ofVirtual().start(r));
        assertThatThrownBy(() -> provider.join(bad, 1, CONFIG, formation))
                .isInstanceOf(ClusterFormationException.class)
                .hasMessageContaining("(BAD_TOKEN): this worker's join token (NEXAR_TOKEN) differs from the seed's");
        assertThatThrownBy(() -> rank0.get(20, TimeUnit.SECONDS)).cause()
                .isInstanceOf(ClusterFormationException.class) // its own deadline, or the seed's: whichever is first
                .hasMessageMatching("join failed: (deadline of .* passed waiting for the seed at .* to form the cluster"
                        + "|.*formation deadline passed: 1 of 2 workers joined.*)");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(formation.plusSeconds(5));
    }

    @Test
    void shouldFailRankZeroClearlyWhenTheSeedPortIsTaken() throws Exception {
        try (var taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String js = JoinString.tokenOnly("127.0.0.1", taken.getLocalPort(), JoinToken.generate()).format();
            assertThatThrownBy(() -> new QuicTransportProvider().joinHostingSeed(js, 2, CONFIG, FORMATION))
                    .isInstanceOf(ClusterFormationException.class)
                    .hasMessageStartingWith("join on rank 0 (world 2) failed: rank 0 cannot start the seed at 127.0.0.1:"
                            + taken.getLocalPort() + " (MASTER_ADDR:MASTER_PORT): ");
        }
    }

    @Test
    void shouldRetryASeedNameThatDoesNotResolveYetUntilTheDeadline() {
        String js = JoinString.tokenOnly("no-such-host.invalid", 29500, JoinToken.generate()).format();
        assertThatThrownBy(() -> new QuicTransportProvider().join(js, 1, CONFIG, Duration.ofSeconds(2)))
                .isInstanceOf(ClusterFormationException.class)
                .hasMessageContaining("seed at no-such-host.invalid:29500 unreachable after");
    }

    private static int freePort() throws IOException {
        try (var s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
