package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14 item 4 for collectives: each communicator's flight recorder keeps its last 64 operations (a fixed ring),
 * with their fingerprint, sequence number and outcome, shown on demand by {@code diagnostics()}.
 */
@Timeout(60)
class CollectiveFlightRecorderTest {

    @Test
    void shouldKeepOnlyTheLastSixtyFourOperationsOfACommunicator() {
        var config = NexarConfig.builder().ignoreEnvironment().hangReportAfter(Duration.ZERO).build();
        try (var cluster = LocalCluster.start(2, config)) {
            var shown = cluster.onEachRank(c -> {
                for (int i = 0; i < 100; i++) { // sequence numbers 0 to 99 on communicator 0
                    if (i % 2 == 0) {
                        c.barrier();
                    } else {
                        c.allReduce(new long[] {i}, ReduceOp.SUM);
                    }
                }
                return c.diagnostics();
            });
            for (String text : shown.values()) {
                long recorded = Arrays.stream(text.split("\n"))
                        .filter(l -> l.matches("  (barrier|allReduce) #\\d+.*: ok")).count();
                assertThat(recorded).as(text).isEqualTo(64);
                assertThat(text).contains("  barrier #36: ").contains("  allReduce #99 (i64 sum, count 1): ")
                        .doesNotContain("  allReduce #35 ");
            }
        }
    }
}
