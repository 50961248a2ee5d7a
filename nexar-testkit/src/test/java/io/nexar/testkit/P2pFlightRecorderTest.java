package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.NexarConfig;
import io.nexar.OperationTimeoutException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14 item 4 for point-to-point: sends, receives (blocking and not) and blocking probes are in the flight
 * recorder, a fixed ring of the last 64, shown by {@code diagnostics()} and dumped with every hang report.
 */
@Timeout(60)
class P2pFlightRecorderTest {

    @Test
    void shouldRecordEverySendReceiveAndProbeInDiagnostics() {
        var config = NexarConfig.builder().ignoreEnvironment().hangReportAfter(Duration.ZERO).build();
        try (var cluster = LocalCluster.start(2, config)) {
            var shown = cluster.onEachRank(c -> {
                var sixteen = MemorySegment.ofArray(new byte[16]);
                if (c.rank() == 0) {
                    c.send(1, 5, sixteen);
                    c.isend(1, 6, sixteen).await();
                    c.send(1, 7, sixteen);
                } else {
                    c.recv(0, 5, sixteen);
                    c.irecv(0, 6, sixteen).await();
                    c.probe(0, 7);
                    c.recv(0, 7, sixteen);
                    try {
                        c.withTimeout(Duration.ofMillis(100)).recv(0, 8, sixteen);
                    } catch (OperationTimeoutException expected) {
                        // recorded as failed
                    }
                }
                c.barrier();
                return c.diagnostics();
            });
            assertThat(shown.get(0)).contains("point-to-point recorder")
                    .contains("send to rank 1 tag 5 on communicator 0 (16 B)")
                    .contains("isend to rank 1 tag 6 on communicator 0 (16 B)")
                    .contains("send to rank 1 tag 7 on communicator 0 (16 B)");
            assertThat(shown.get(1)).contains("recv from rank 0 tag 5 on communicator 0 (16 B)")
                    .contains("irecv from rank 0 tag 6 on communicator 0 (16 B)")
                    .contains("probe from rank 0 tag 7 on communicator 0 (16 B)")
                    .contains("recv from rank 0 tag 7 on communicator 0 (16 B)")
                    .containsPattern("recv from rank 0 tag 8 on communicator 0: started [0-9.]+ s ago, took [0-9.]+ ms:"
                            + " failed, OperationTimeoutException: recv on rank 1 \\(world 2, comm 0, tag 8, peer 0\\)");
        }
    }

    @Test
    void shouldKeepOnlyTheLastOperationsInAFixedRing() {
        var config = NexarConfig.builder().ignoreEnvironment().hangReportAfter(Duration.ZERO).build();
        try (var cluster = LocalCluster.start(2, config)) {
            var shown = cluster.onEachRank(c -> {
                var one = MemorySegment.ofArray(new byte[1]);
                for (int i = 0; i < 200; i++) {
                    if (c.rank() == 0) {
                        c.send(1, i, one);
                    } else {
                        c.recv(0, i, one);
                    }
                }
                return c.diagnostics();
            });
            String[] lines = shown.get(1).split("\n");
            long recorded = Arrays.stream(lines).filter(l -> l.startsWith("  recv from rank 0 tag ")).count();
            assertThat(recorded).isEqualTo(64);
            assertThat(shown.get(1)).contains("recv from rank 0 tag 136 ").contains("recv from rank 0 tag 199 ")
                    .doesNotContain("recv from rank 0 tag 135 ");
        }
    }

    @Test
    void shouldDumpThePointToPointRecorderWithAHangReport() {
        var config = NexarConfig.builder().ignoreEnvironment().hangReportAfter(Duration.ofMillis(300)).build();
        try (var cluster = LocalCluster.start(2, config)) {
            var messages = cluster.onEachRank(c -> {
                var four = MemorySegment.ofArray(new byte[4]);
                if (c.rank() == 0) {
                    c.send(1, 1, four);
                    c.barrier(); // waits here while rank 1's recv of tag 2 hangs
                    return "";
                }
                c.recv(0, 1, four);
                try {
                    c.withTimeout(Duration.ofSeconds(4)).recv(0, 2, four);
                    return "received";
                } catch (OperationTimeoutException e) {
                    return e.getMessage();
                } finally {
                    c.barrier();
                }
            });
            assertThat(messages.get(1)).contains("nexar hang report:").contains("recv from rank 0 tag 2")
                    .contains("point-to-point recorder").contains("recv from rank 0 tag 1 on communicator 0 (4 B)");
        }
    }
}
