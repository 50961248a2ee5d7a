package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.MembershipEvent;
import io.nexar.NexarConfig;
import io.nexar.PeerFailedException;
import io.nexar.RecoveryPolicy;
import io.nexar.ReduceOp;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The failure detector over real QUIC connections: a rank that stops sending heartbeats (its process hangs, or is
 * cut off) is declared failed by every peer once nothing arrived from it for {@code heartbeat.timeout}, and the
 * recovery policy takes it from there.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuicFailureDetectionTest {
    private static final Duration INTERVAL = Duration.ofMillis(100);
    private static final Duration TIMEOUT = Duration.ofMillis(1500);

    private static NexarConfig config(RecoveryPolicy policy) {
        return NexarConfig.builder().ignoreEnvironment().heartbeat(INTERVAL, TIMEOUT).recoveryPolicy(policy)
                .collectiveTimeout(Duration.ofSeconds(30)).build();
    }

    @Test
    void shouldFailEverySurvivorNamingTheSilentRankWithinTheHeartbeatTimeout() throws Exception {
        try (var cluster = QuicTestCluster.start(3, config(RecoveryPolicy.ABORT), InetAddress.getLoopbackAddress())) {
            var silent = new CountDownLatch(1);
            long[] silentAt = new long[1];
            Map<Integer, String> outcome = cluster.onEachRank(c -> {
                c.allReduce(new float[] {1}, ReduceOp.SUM);
                if (c.rank() == 2) {
                    silentAt[0] = System.nanoTime();
                    QuicFaults.pauseHeartbeats(cluster.transport(2)); // hangs: sends nothing more, keeps its sockets
                    silent.countDown();
                    assertThatThrownBy(() -> c.recv(0, 5, new int[1])).isInstanceOf(PeerFailedException.class);
                    return "cut off";
                }
                assertThat(silent.await(10, TimeUnit.SECONDS)).isTrue();
                var e = org.assertj.core.api.Assertions.catchThrowableOfType(PeerFailedException.class,
                        () -> c.allReduce(new float[] {1}, ReduceOp.SUM));
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentAt[0]);
                System.out.println("rank " + c.rank() + " detected the silent rank after " + ms + " ms: "
                        + e.getMessage());
                assertThat(ms).as("detected within heartbeat.timeout + 1 s").isLessThan(TIMEOUT.toMillis() + 1000);
                return e.getMessage();
            });

            for (int r = 0; r < 2; r++) {
                assertThat(outcome.get(r)).contains("rank 2 sent nothing for").contains("heartbeat timeout 1.5s");
            }
        }
    }

    @Test
    void shouldContinueWithoutTheSilentRankUnderAutomatic() throws Exception {
        try (var cluster = QuicTestCluster.start(4, config(RecoveryPolicy.AUTOMATIC),
                InetAddress.getLoopbackAddress())) {
            var excluded = new CountDownLatch(1);
            for (int r = 0; r < 4; r++) {
                int rank = r;
                cluster.communicator(r).watch(e -> System.out.println("event on rank " + rank + ": " + e));
            }
            cluster.communicator(3).watch(e -> {
                if (e instanceof MembershipEvent.Excluded || e instanceof MembershipEvent.RankFailed) {
                    excluded.countDown();
                }
            });
            Map<Integer, String> outcome = cluster.onEachRank(c -> {
                c.allReduce(new float[] {1}, ReduceOp.SUM);
                if (c.rank() == 3) {
                    QuicFaults.pauseHeartbeats(cluster.transport(3));
                    assertThat(excluded.await(20, TimeUnit.SECONDS)).isTrue();
                    return "excluded";
                }
                float[] x = {1};
                for (int attempt = 0; attempt < 5; attempt++) {
                    x[0] = 1;
                    try {
                        c.allReduce(x, ReduceOp.SUM);
                        return c.worldSize() + ":" + x[0];
                    } catch (PeerFailedException e) {
                        System.out.println("rank " + c.rank() + ": " + e.getMessage());
                    }
                }
                return "no progress";
            });

            assertThat(outcome).containsEntry(0, "3:3.0").containsEntry(1, "3:3.0").containsEntry(2, "3:3.0");
        }
    }
}
