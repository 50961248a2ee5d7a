package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The grouped hang reports that {@code nexar launch} and {@code nexar bench} print once the ranks have ended. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class HangReportSummaryTest {
    private static final String LOG = "WARN  [rank %d/4] HangReports: ";

    private static List<String> barrierReport(int rank, String seconds) {
        return List.of(LOG.formatted(rank) + "nexar hang report: world rank " + rank + " of 4 is in barrier #0 on"
                        + " communicator 0 (step 1 of 2, waiting for rank 3) for " + seconds + " s",
                "  world rank 3: recv from rank 0 tag 7 on communicator 0 for " + seconds + " s",
                "  recent on communicator 0: allReduce #3 (f32 sum, count 8): ok");
    }

    private static String print(HangReportSummary summary, int worldSize) {
        var bytes = new ByteArrayOutputStream();
        summary.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), worldSize);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldGroupRanksByOperationAndNameTheRankTheyWaitFor() {
        var summary = new HangReportSummary();
        summary.add(barrierReport(0, "1.0"), 0, 1);
        summary.add(barrierReport(2, "1.2"), 2, 5);
        summary.add(barrierReport(1, "1.1"), 1, 3);
        summary.add(List.of(LOG.formatted(3) + "nexar hang report: world rank 3 of 4 is in recv from rank 0 tag 7 on"
                + " communicator 0 for 1.0 s", "  world rank 0: barrier #0 on communicator 0 (step 1 of 2, waiting"
                + " for rank 3) for 1.0 s"), 3, 7);

        assertThat(print(summary, 4)).isEqualTo(String.join(System.lineSeparator(),
                "nexar: hang reports of ranks 0, 1, 2, 3 (4 ranks), grouped:",
                "  ranks 0, 1, 2 were in barrier #0 on communicator 0",
                "  rank 3 was in recv from rank 0 tag 7 on communicator 0",
                "  what the ranks they waited for were doing:",
                "  world rank 0 (asked by rank 3): barrier #0 on communicator 0 (step 1 of 2, waiting for rank 3) for"
                        + " 1.0 s",
                "  world rank 3 (asked by ranks 0, 1, 2): recv from rank 0 tag 7 on communicator 0 for 1.0 s", ""));
    }

    @Test
    void shouldNameRanksWithoutAReportAndTakeLateLinesOfAReport() {
        var summary = new HangReportSummary();
        List<String> full = barrierReport(1, "2.0");
        summary.add(full.subList(0, 1), 1, 3); // its indented lines arrived after the block was forwarded
        summary.continued(full.get(1), 3);
        summary.ended(3);
        summary.continued("  world rank 2: not reachable (no answer within 2 s)", 3); // not the report's any more
        summary.add(List.of("[rank 0] rank 0 gave up"), 0, 1); // not a report
        summary.add(List.of(LOG.formatted(2) + "Membership: peer down: world rank 1 failed (io.nexar"
                + ".PeerFailedException: barrier on rank 1 (world 3, comm 0, seq 0, peer 0) cannot complete: rank 0"
                + " failed it (nexar hang report: world rank 1 of 3 is in barrier #0 on communicator 0 for 2.0 s",
                "  world rank 2: recv from rank 0 tag 7 on communicator 0 for 2.0 s))"), 2, 5); // a quoted report

        assertThat(print(summary, 3)).isEqualTo(String.join(System.lineSeparator(),
                "nexar: hang reports of rank 1 (1 rank), grouped:",
                "  rank 1 was in barrier #0 on communicator 0",
                "  what the ranks they waited for were doing:",
                "  world rank 3 (asked by rank 1): recv from rank 0 tag 7 on communicator 0 for 2.0 s",
                "  no hang report from ranks 0, 2", ""));
        assertThat(print(new HangReportSummary(), 3)).isEmpty();
    }

    /** nexar bench --in-process: its ranks share the JVM; their reports reach the summary through the log backend. */
    @Test
    void shouldCollectTheReportsThisJvmLogs() {
        var summary = new HangReportSummary();
        var lines = new ByteArrayOutputStream();
        CliLogProvider.sink(new PrintStream(lines, true, StandardCharsets.UTF_8));
        CliLogProvider.tap(summary::addLogLine);
        try {
            var log = new CliLogger("io.nexar.internal.transport.HangReports");
            log.warn("connection up: world rank 1"); // not a report
            log.warn(String.join("\n", barrierReport(1, "1.5")).substring(LOG.formatted(1).length()));
        } finally {
            CliLogProvider.tap(null);
            CliLogProvider.sink(null);
        }
        assertThat(lines.toString(StandardCharsets.UTF_8)).contains("HangReports: nexar hang report: world rank 1");
        assertThat(print(summary, 2)).contains("  rank 1 was in barrier #0 on communicator 0",
                "  world rank 3 (asked by rank 1): recv from rank 0 tag 7 on communicator 0 for 1.5 s",
                "  no hang report from rank 0");
    }
}
