package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code nexar bench} itself hangs (issue 14 item 3): rank 3 of a 4-rank {@code nexar bench --in-process} never enters
 * an operation (the test fault {@link BenchRunner#ABSENT_PROPERTY}), so the others wait in their first one. Each
 * waiting rank logs a hang report after {@code hang.report.after} (1 s), the bench prints all reports grouped, naming
 * rank 3 and what it is doing, and fails at the collective timeout (6 s) saying what every rank was doing (each failed
 * rank logs its flight recorder, issue 14 item 4). One JVM of its own, started as the {@code nexar} script starts the
 * command (with its log backend, which the reports go through).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class BenchHangTest {
    private static final long REPORT_MS = 1_000;
    /**
     * Long enough for every waiting rank to report first: on a loaded 2-core machine the ranks of an in-process bench
     * enter their first operation up to 2 s apart, and a message that arrives for a later step counts as progress;
     * at a load average of 25 (other builds, this JVM niced) one run saw no report within 5 s.
     */
    private static final long TIMEOUT_MS = 6_000;

    @Test
    void shouldPrintTheGroupedHangReportNamingTheRankThatNeverCameAndFail() throws Exception {
        var cli = new CliProcess(List.of("-D" + BenchRunner.ABSENT_PROPERTY + "=3"),
                Map.of("NEXAR_HANG_REPORT_AFTER", REPORT_MS + "ms", "NEXAR_COLLECTIVE_TIMEOUT", TIMEOUT_MS + "ms"),
                (c, line) -> { }, "bench", "--in-process", "-n", "4", "--op", "allreduce", "--sizes", "8", "--iters",
                "3", "--warmup", "1");
        try {
            int code = cli.await();
            String all = cli.lines.stream().map(CliProcess.Line::text).collect(Collectors.joining("\n"));
            assertThat(code).as(all).isEqualTo(ExitCodes.FAILED);
            String rank3 = "recv from rank 0 tag " + 0x6162;
            for (int r = 0; r < 3; r++) { // each waiting rank's own report, as it logged it
                assertThat(all).containsPattern("WARN  \\[rank " + r + "/4\\] HangReports: nexar hang report: world"
                        + " rank " + r + " of 4 is in \\w+ #\\d+ on communicator 0");
            }
            assertThat(all)
                    .containsPattern("(?m)^nexar: hang reports of ranks 0, 1, 2(, 3)? \\([34] ranks\\), grouped:$")
                    .containsPattern("\n  ranks 0, 1, 2 were in \\w+ #\\d+ on communicator 0\n")
                    .containsPattern("\n  world rank 3 \\(asked by ranks 0, 1, 2\\): " + rank3 + " on communicator 0")
                    .contains("  rank 3 during " + rank3 + ", never entering an operation (test fault "
                            + BenchRunner.ABSENT_PROPERTY + ")")
                    .containsPattern("CollectiveEngine: nexar flight recorder: rank [012] of 4 after \\w+ #\\d+"
                            + " failed:")
                    .containsPattern("OperationTimeoutException: \\w+ on rank [012] \\(world 4, comm 0, seq \\d+,"
                            + " peer 3\\) timed out after 6s at step \\d+/\\d+ waiting for rank 3; nexar hang"
                            + " report: ");
            // timed from rank 0's progress line, printed as the ranks go into their first operation
            long start = cli.first("^bench: \\[1/1\\] allreduce 8 B$", 0).nanos();
            long reportMs = (cli.first("nexar hang report: ", start).nanos() - start) / 1_000_000;
            long failedMs = (cli.first("^nexar bench: rank [012] failed$", start).nanos() - start) / 1_000_000;
            System.out.println("test> first hang report after " + reportMs + " ms, failure after " + failedMs + " ms");
            assertThat(reportMs).as("the first report, hang.report.after = %d ms", REPORT_MS)
                    .isGreaterThanOrEqualTo(REPORT_MS).isLessThan(failedMs);
            assertThat(failedMs).as("the failure, collective.timeout = %d ms", TIMEOUT_MS)
                    .isGreaterThanOrEqualTo(TIMEOUT_MS).isLessThan(TIMEOUT_MS + 4_000);
        } finally {
            cli.destroy();
        }
    }
}
