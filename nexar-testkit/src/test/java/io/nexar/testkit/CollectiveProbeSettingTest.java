package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.CollectiveMismatchException;
import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.NexarException;
import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Setting {@code collective.probe.after}: a reduce whose root is 0 on rank 0 and 1 on the others exchanges no message
 * across the disagreement, so only fingerprint probes find it. With probes after 100 ms every rank fails with
 * {@link CollectiveMismatchException} naming the root (a rank that only sends, at its next call) long before the
 * timeout; with the setting at 0s (never) the ranks that wait time out and no rank learns of the mismatch.
 */
@Timeout(60)
class CollectiveProbeSettingTest {

    private static Map<Integer, String> reduceWithDifferentRoots(Duration probeAfter, Duration timeout) {
        var config = NexarConfig.builder().ignoreEnvironment().hangReportAfter(Duration.ZERO)
                .collectiveTimeout(timeout).collectiveProbeAfter(probeAfter).build();
        try (var cluster = LocalCluster.start(4, config)) {
            return cluster.onEachRank(c -> {
                var in = MemorySegment.ofArray(new long[4]);
                var out = MemorySegment.ofArray(new long[4]);
                try {
                    c.reduce(in, out, DataType.I64, 4, ReduceOp.SUM, c.rank() == 0 ? 0 : 1);
                    // a rank that only sends returns; it learns of the mismatch in its next call
                    c.barrier();
                    return "returned";
                } catch (CollectiveMismatchException e) {
                    return "mismatch " + e.field();
                } catch (NexarException e) {
                    return e.getClass().getSimpleName();
                }
            });
        }
    }

    @Test
    void shouldFindARootMismatchByProbesAfterTheSetting() {
        assertThat(reduceWithDifferentRoots(Duration.ofMillis(100), Duration.ofSeconds(30)).values())
                .containsOnly("mismatch ROOT").hasSize(4);
    }

    @Test
    void shouldSendNoProbesWhenTheSettingIsZero() {
        // the ranks waiting for a message that never comes time out; the others fail because of them
        assertThat(reduceWithDifferentRoots(Duration.ZERO, Duration.ofSeconds(2)).values())
                .contains("OperationTimeoutException").doesNotContain("mismatch ROOT", "returned").hasSize(4);
    }
}
