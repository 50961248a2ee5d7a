package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.ConfigKey;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import io.nexar.internal.transport.Lane;
import io.nexar.testkit.Await;
import io.nexar.transport.quic.bulk.BulkProbes;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The thread that waits reads its own TCP lane (setting {@code poll.window}): messages a caller waits for are
 * delivered on the caller's thread while it polls; after its window it hands the lane back and the reader thread
 * delivers; without a window the reader thread delivers everything.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CallerDrivenLaneTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment()
            .p2pTimeout(Duration.ofSeconds(20)).collectiveTimeout(Duration.ofSeconds(20)).build();
    private static final int ROUNDS = 300;

    @Test
    void shouldDeliverWhatACallerWaitsForOnTheCallersThread() {
        try (var cluster = QuicTestCluster.start(2, CONFIG, LOOPBACK)) {
            cluster.run(c -> {
                int peer = 1 - c.rank();
                byte[] got = new byte[8];
                for (int i = 0; i < ROUNDS; i++) {
                    float[] v = {c.rank() + 1, i};
                    c.allReduce(v, ReduceOp.SUM);
                    assertThat(v).as("allreduce %d", i).containsExactly(3f, 2f * i);
                    if (c.rank() == 0) { // ping-pong: each recv waits for the other's send
                        c.send(peer, 5, new byte[] {(byte) i, 1, 2, 3, 4, 5, 6, 7});
                        c.recv(peer, 5, got);
                    } else {
                        c.recv(peer, 5, got);
                        c.send(peer, 5, got);
                    }
                    assertThat(got[0]).as("ping %d", i).isEqualTo((byte) i);
                }
                return null;
            });
            for (Lane lane : new Lane[] {Lane.COLLECTIVE, Lane.P2P}) {
                long byCallers = 0;
                for (int r = 0; r < 2; r++) {
                    byCallers += BulkProbes.deliveries(cluster.transport(r).link(1 - r).bulk(lane))[0];
                }
                assertThat(byCallers).as("%s messages delivered by the thread waiting for them", lane).isPositive();
            }
        }
    }

    @Test
    void shouldLeaveEveryMessageToTheReaderThreadWithoutAPollWindow() {
        var config = CONFIG.toBuilder().set(ConfigKey.POLL_WINDOW, "0s").build();
        try (var cluster = QuicTestCluster.start(2, config, LOOPBACK)) {
            // a message sent before its TCP lane is attached travels on QUIC: count only once both lanes carry it
            Await.until(() -> collectiveLane(cluster, 0) != null && collectiveLane(cluster, 1) != null,
                    Duration.ofSeconds(20), "both ranks' collective TCP lanes attached");
            cluster.run(c -> {
                for (int i = 0; i < 50; i++) {
                    float[] v = {c.rank() + 1};
                    c.allReduce(v, ReduceOp.SUM);
                    assertThat(v).containsExactly(3f);
                }
                return null;
            });
            for (int r = 0; r < 2; r++) {
                long[] d = BulkProbes.deliveries(collectiveLane(cluster, r));
                assertThat(d[0]).as("rank %d: messages delivered by callers", r).isZero();
                assertThat(d[1]).as("rank %d: messages delivered by the reader thread", r).isGreaterThanOrEqualTo(50);
            }
        }
    }

    @Test
    void shouldHaveTheReaderThreadDeliverOnceTheWaitingCallerHandedTheLaneBack() {
        // A 1 us window: the receiver hands back almost at once and sleeps; only then does the sender send, so the
        // message can reach it only through the reader thread (a lost hand-back makes this test time out).
        var config = CONFIG.toBuilder().set(ConfigKey.POLL_WINDOW, "1us").build();
        try (var cluster = QuicTestCluster.start(2, config, LOOPBACK)) {
            var receiver = new CompletableFuture<Thread>();
            cluster.run(c -> {
                byte[] got = new byte[4];
                if (c.rank() == 1) {
                    receiver.complete(Thread.currentThread());
                    c.recv(0, 9, got);
                    assertThat(got).containsExactly(9, 8, 7, 6);
                } else {
                    Thread t = receiver.join();
                    Await.untilWaiting(t, Duration.ofSeconds(20), "rank 1's receiver sleeps in recv");
                    c.send(1, 9, new byte[] {9, 8, 7, 6});
                }
                return null;
            });
            long[] d = BulkProbes.deliveries(cluster.transport(1).link(0).bulk(Lane.P2P));
            assertThat(d[1]).as("messages delivered by rank 1's P2P reader thread").isPositive();
        }
    }

    /** Rank {@code r}'s attached collective TCP lane to the other rank, or null while there is none. */
    private static io.nexar.transport.quic.bulk.BulkConnection collectiveLane(QuicTestCluster cluster, int r) {
        PeerLink link = cluster.transport(r).link(1 - r);
        var b = link == null ? null : link.bulk(Lane.COLLECTIVE);
        return b != null && b.isReady() ? b : null;
    }
}
