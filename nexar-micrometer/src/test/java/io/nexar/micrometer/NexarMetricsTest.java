package io.nexar.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nexar.NexarConfig;
import io.nexar.PeerFailedException;
import io.nexar.RecoveryPolicy;
import io.nexar.ReduceOp;
import io.nexar.testkit.LocalCluster;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import jdk.jfr.Event;
import jdk.jfr.Name;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 14 item 6: nexar's JFR events, streamed in-process, become Micrometer meters with bounded tags. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NexarMetricsTest {
    private static final int WORLD = 4;

    @Test
    void shouldTimeEveryCollectiveAndPointToPointCallWithItsTags() {
        var registry = new SimpleMeterRegistry();
        var metrics = NexarMetrics.builder().rankTag(true).bindTo(registry);
        try (var cluster = LocalCluster.start(WORLD)) {
            cluster.onEachRank(c -> {
                for (int i = 0; i < 7; i++) {
                    c.allReduce(new long[] {c.rank()}, ReduceOp.SUM);
                }
                c.broadcast(new long[12], 0);
                c.barrier();
                int next = (c.rank() + 1) % c.worldSize();
                int prev = (c.rank() + c.worldSize() - 1) % c.worldSize();
                c.send(next, 3, new byte[24]);
                c.recv(prev, 3, new byte[24]);
                return null;
            });
        } finally {
            metrics.close(); // records every event committed so far: the counts are exact from here on
        }

        for (int rank = 0; rank < WORLD; rank++) {
            String r = Integer.toString(rank);
            Timer allReduce = registry.get(NexarMetrics.COLLECTIVE)
                    .tags("operation", "allReduce", "outcome", "ok", "rank", r).timer();
            assertThat(allReduce.count()).as("rank %d", rank).isEqualTo(7);
            assertThat(allReduce.totalTime(TimeUnit.NANOSECONDS)).isPositive();
            assertThat(registry.get(NexarMetrics.COLLECTIVE).tags("operation", "broadcast", "rank", r).timer()
                    .count()).isEqualTo(1);
            assertThat(registry.get(NexarMetrics.COLLECTIVE).tags("operation", "barrier", "rank", r).timer()
                    .count()).isEqualTo(1);
            DistributionSummary sent = registry.get(NexarMetrics.COLLECTIVE_SENT)
                    .tags("operation", "allReduce", "rank", r).summary();
            assertThat(sent.count()).isEqualTo(7);
            assertThat(sent.totalAmount()).isPositive(); // every rank of a 4-rank allReduce sends something
            for (String op : new String[] {"send", "recv"}) {
                assertThat(registry.get(NexarMetrics.P2P).tags("operation", op, "outcome", "ok", "rank", r).timer()
                        .count()).as("%s on rank %d", op, rank).isEqualTo(1);
                DistributionSummary bytes = registry.get(NexarMetrics.P2P_PAYLOAD)
                        .tags("operation", op, "rank", r).summary();
                assertThat(bytes.count()).isEqualTo(1);
                assertThat(bytes.totalAmount()).isEqualTo(24);
            }
        }
        // bounded tags: operation, outcome and the opted-in rank, nothing per call (and the percentile gauges' phi);
        // closing the cluster made the ranks leave, which nexar.peer.failures counts with reason=left
        for (Meter meter : registry.getMeters()) {
            String name = meter.getId().getName();
            if (name.startsWith("nexar.collective") || name.startsWith("nexar.p2p")) {
                assertThat(meter.getId().getTags().stream().filter(t -> !t.getKey().equals("phi")))
                        .allSatisfy(tag -> assertThat(tag.getKey()).isIn("operation", "outcome", "rank"));
            }
        }
    }

    @Test
    void shouldShowCallsWhileRunningWithoutRankTagsByDefault() {
        var registry = new SimpleMeterRegistry();
        try (var cluster = LocalCluster.start(2); var metrics = NexarMetrics.bindTo(registry)) {
            assertThat(metrics).isNotNull(); // bound before the calls, closed after the checks
            cluster.onEachRank(c -> {
                for (int i = 0; i < 5; i++) {
                    c.allReduce(new float[] {1}, ReduceOp.SUM);
                }
                return null;
            });
            // no close: the stream delivers them after its flush (about 1 s)
            awaitTrue(() -> {
                Timer t = registry.find(NexarMetrics.COLLECTIVE).tags("operation", "allReduce", "outcome", "ok")
                        .timer();
                return t != null && t.count() == 10; // both ranks' calls in one meter
            });
            Timer timer = registry.get(NexarMetrics.COLLECTIVE).timer();
            assertThat(timer.getId().getTags()).extracting(t -> t.getKey()).containsExactlyInAnyOrder("operation",
                    "outcome");
            assertThat(timer.takeSnapshot().percentileValues()).hasSize(3); // 0.5, 0.9, 0.99
        }
    }

    @Test
    void shouldCountPeerFailuresAndFailedOperations() {
        var registry = new SimpleMeterRegistry();
        var config = NexarConfig.builder().ignoreEnvironment().recoveryPolicy(RecoveryPolicy.ABORT)
                .collectiveTimeout(Duration.ofSeconds(20)).build();
        var metrics = NexarMetrics.bindTo(registry);
        try (var cluster = LocalCluster.start(WORLD, config, Duration.ofSeconds(45))) {
            var firstDone = new CountDownLatch(WORLD);
            cluster.onEachRank(c -> {
                c.allReduce(new float[] {1}, ReduceOp.SUM);
                firstDone.countDown();
                if (c.rank() == 2) {
                    assertThat(firstDone.await(20, TimeUnit.SECONDS)).isTrue();
                    cluster.crash(2);
                    return null;
                }
                assertThatThrownBy(() -> {
                    while (true) {
                        c.allReduce(new float[] {1}, ReduceOp.SUM);
                    }
                }).isInstanceOf(PeerFailedException.class);
                return null;
            });
        } finally {
            metrics.close(); // records every event committed so far
        }

        Counter failures = registry.get(NexarMetrics.PEER_FAILURES).tags("reason", "failed").counter();
        assertThat(failures.count()).isGreaterThanOrEqualTo(1); // each survivor's engine learns it once
        assertThat(registry.get(NexarMetrics.COLLECTIVE).tags("operation", "allReduce", "outcome",
                "PeerFailedException").timer().count()).isEqualTo(WORLD - 1);
    }

    @Test
    void shouldTimeShrinks() {
        var registry = new SimpleMeterRegistry();
        var config = NexarConfig.builder().ignoreEnvironment().recoveryPolicy(RecoveryPolicy.MANUAL)
                .collectiveTimeout(Duration.ofSeconds(20)).recoveryTimeout(Duration.ofSeconds(20)).build();
        var metrics = NexarMetrics.bindTo(registry);
        try (var cluster = LocalCluster.start(3, config, Duration.ofSeconds(45))) {
            var crashed = new CountDownLatch(1);
            cluster.onEachRank(c -> {
                if (c.rank() == 1) {
                    cluster.crash(1);
                    crashed.countDown();
                    return null;
                }
                assertThat(crashed.await(20, TimeUnit.SECONDS)).isTrue();
                assertThatThrownBy(() -> c.allReduce(new float[] {1}, ReduceOp.SUM))
                        .isInstanceOf(PeerFailedException.class);
                c.shrink().barrier();
                return null;
            });
        } finally {
            metrics.close(); // records every event committed so far
        }
        assertThat(registry.get(NexarMetrics.MEMBERSHIP_CHANGES).tags("kind", "shrink").timer().count())
                .isEqualTo(2);
    }

    @Test
    void shouldCountConnectionsByStateAndLane() {
        var registry = new SimpleMeterRegistry();
        var metrics = NexarMetrics.bindTo(registry);
        try {
            // the in-process transport has no connections: commit an event as the QUIC transport's
            for (String state : new String[] {"established", "established", "lost"}) {
                var event = new QuicConnectionEvent();
                event.peer = 1;
                event.lane = state.equals("lost") ? "all" : "quic (control, heartbeats)";
                event.state = state;
                event.detail = "test";
                event.commit();
            }
        } finally {
            metrics.close(); // records every event committed so far
        }
        assertThat(registry.get(NexarMetrics.CONNECTIONS).tags("state", "established").counter().count())
                .isEqualTo(2);
        assertThat(registry.get(NexarMetrics.CONNECTIONS).tags("state", "lost", "lane", "all").counter().count())
                .isEqualTo(1);
    }

    @Test
    void shouldTagTheOutcomeWithTheExceptionClassOnly() {
        assertThat(NexarMetrics.outcome("ok")).isEqualTo("ok");
        assertThat(NexarMetrics.outcome(null)).isEqualTo("ok");
        assertThat(NexarMetrics.outcome("PeerFailedException: allReduce on rank 0 (world 4, comm 0, seq 12) ..."))
                .isEqualTo("PeerFailedException");
    }

    @Test
    void shouldBeClosableTwice() {
        var metrics = NexarMetrics.bindTo(new SimpleMeterRegistry());
        metrics.close();
        metrics.close();
    }

    /** The fields of io.nexar.internal.jfr.ConnectionEvent (not exported to this module), under its name. */
    @Name("io.nexar.Connection")
    static final class QuicConnectionEvent extends Event {
        int peer;
        String lane;
        String state;
        String detail;
    }

    /** Waits for a condition the JFR stream makes true after its flush interval (1 s), at most 10 s. */
    private static void awaitTrue(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("condition within 10 s").isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }
}
