package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.NexarConfig;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LocalClusterTest {
    private static NexarConfig config() {
        return NexarConfig.builder().ignoreEnvironment().build();
    }

    @Test
    void shouldReturnEachRanksResult() {
        try (var cluster = LocalCluster.start(5, config())) {
            assertThat(cluster.onEachRank(c -> c.rank() * c.worldSize()))
                    .isEqualTo(java.util.Map.of(0, 0, 1, 5, 2, 10, 3, 15, 4, 20));
        }
    }

    @Test
    void shouldRunASingleRankCluster() {
        try (var cluster = LocalCluster.start(1, config())) {
            assertThat(cluster.onEachRank(c -> {
                c.send(0, 0, new int[] {9});
                var x = new int[1];
                c.recv(0, 0, x);
                return x[0];
            })).containsEntry(0, 9);
        }
    }

    @Test
    void shouldRethrowTheFirstFailureWithItsRank() {
        try (var cluster = LocalCluster.start(4, config())) {
            assertThatThrownBy(() -> cluster.run(c -> {
                if (c.rank() == 2) {
                    throw new IllegalStateException("rank two broke");
                }
                return null;
            })).isInstanceOfSatisfying(RankFailedException.class, e -> assertThat(e.rank()).isEqualTo(2))
                    .hasMessage("rank 2 of 4 failed: java.lang.IllegalStateException: rank two broke")
                    .hasCauseInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void shouldTimeOutWithTheStacksOfStuckRanks() {
        var never = new CountDownLatch(1);
        try (var cluster = LocalCluster.start(2, config(), Duration.ofMillis(300))) {
            assertThatThrownBy(() -> cluster.run(c -> {
                if (c.rank() == 1) {
                    never.await();
                }
                return null;
            })).isInstanceOf(RankFailedException.class)
                    .hasMessageStartingWith("LocalCluster run did not finish within 300ms; still running:\n  rank 1 at")
                    .hasMessageContaining("CountDownLatch.await");
        }
    }

    @Test
    void shouldRejectAnEmptyCluster() {
        assertThatThrownBy(() -> LocalCluster.start(0, config())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("worldSize 0 is not in [1, 2147483647]");
    }
}
