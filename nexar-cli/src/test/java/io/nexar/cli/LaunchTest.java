package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real multi-process runs: {@code nexar launch} starts a seed and worker JVMs that enrol, form a QUIC mesh on
 * loopback and run the examples. At most 4 JVMs at a time (CI has 2 cores).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LaunchTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        var context = new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of(), Map.of());
        return NexarCli.run(context, args);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldFormAFourRankClusterOverQuicAndAllReduce() {
        int code = run("launch", "-n", "4", "io.nexar.examples.AllReduce");
        assertThat(code).as(out() + err.toString(StandardCharsets.UTF_8)).isZero();
        for (int r = 0; r < 4; r++) {
            assertThat(out()).containsPattern("(?m)^rank=" + r + " pid=\\d+$")
                    .contains("[rank " + r + "] rank " + r + ": [6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0]");
        }
    }

    /** Issue 15 items 3 and 4 across processes: bucketed and compressed allReduce over QUIC and the TLS lanes. */
    @Test
    void shouldRunBucketedAndCompressedAllReduceAcrossFourProcesses() {
        int code = run("launch", "-n", "4", "io.nexar.examples.GradientBuckets");
        assertThat(code).as(out() + err.toString(StandardCharsets.UTF_8)).isZero();
        for (int r = 0; r < 4; r++) {
            assertThat(out()).contains("[rank " + r + "] rank " + r + ": 3 buckets averaged in one allReduce",
                    "[rank " + r + "] rank " + r + ": compressed allReduce delivered every element");
        }
    }

    /** Issue 15's RPC example across four processes: every rank calls every rank and checks every answer. */
    @Test
    void shouldCallRemoteFunctionsAcrossProcesses() {
        int code = run("launch", "-n", "4", "io.nexar.examples.Rpc");
        assertThat(code).as(out() + err.toString(StandardCharsets.UTF_8)).isZero();
        for (int r = 0; r < 4; r++) {
            for (int peer = 0; peer < 4; peer++) {
                long square = (r + 10L) * (r + 10L) + peer;
                assertThat(out()).contains("[rank " + r + "] rank " + r + " -> rank " + peer + ": " + square
                        + ", \"rank " + peer + " greets rank " + r + ": hello\"");
            }
            assertThat(out()).contains("[rank " + r + "] rank " + r + ": as expected, ");
        }
    }

    /**
     * Two ranks: what this adds to the 4-rank runs above is the IPv6 address in the join string, the seed's socket
     * and the members' QUIC and TCP lanes, which one pair of workers already uses (two JVMs fewer on 2 cores).
     */
    @Test
    void shouldFormAClusterOverIpv6Loopback() throws Exception {
        Assumptions.assumeTrue(hasIpv6Loopback(), "no ::1 on this machine");
        int code = run("launch", "-n", "2", "--host", "::1", "io.nexar.examples.Barrier");
        assertThat(code).as(out() + err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out()).contains("[rank 1] rank 1 passed barrier 2", "[rank 0] rank 0 passed barrier 2");
    }

    /**
     * Issue 14's hang: rank 3 never calls the barrier. Each other rank's report names what rank 3 is doing, and
     * reaches the launcher's output as one block under its rank's prefix; at the end the launcher prints them all,
     * grouped ({@link HangReportSummary}).
     */
    @Test
    void shouldPrintEachRanksHangReportNamingTheRankThatNeverCalled() {
        int code = run("launch", "-n", "4", "io.nexar.examples.HangReport", "1s", "4s");
        String all = out() + err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(all).isZero();
        assertThat(out()).contains("[rank 3] rank 3 released");
        for (int r = 0; r < 3; r++) {
            assertThat(out()).contains("[rank " + r + "] rank " + r + " gave up: ");
            assertThat(err.toString(StandardCharsets.UTF_8)).as(all)
                    .containsPattern("\\[rank " + r + "\\] WARN  \\[rank " + r + "/4\\] HangReports:"
                            + " nexar hang report: world rank " + r + " of 4 is in barrier #0 on communicator 0"
                            + " .*\\n(\\[rank " + r + "\\]   .*\\n)*?"
                            + "\\[rank " + r + "\\]   world rank 3: recv from rank 0 tag 7 on communicator 0");
        }
        assertThat(out()).contains("gave up: OperationTimeoutException (with the hang report)"); // the first one
        // once the ranks have ended, the launcher prints all reports grouped, naming the rank that never came
        assertThat(err.toString(StandardCharsets.UTF_8)).as(all)
                .containsPattern("(?m)^nexar: hang reports of ranks 0, 1, 2(, 3)? \\([34] ranks\\), grouped:$")
                .contains("\n  ranks 0, 1, 2 were in barrier #0 on communicator 0\n")
                .containsPattern("\n  world rank 3 \\(asked by ranks 0, 1, 2\\): recv from rank 0 tag 7 on"
                        + " communicator 0");
    }

    @Test
    void shouldExitNonZeroWhenAWorkerFails() {
        int code = run("launch", "-n", "2", "io.nexar.cli.TestChild", "fail", "7");
        assertThat(code).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("exited with code 7");
    }

    private static boolean hasIpv6Loopback() throws Exception {
        var lo = NetworkInterface.getByInetAddress(InetAddress.getByName("::1"));
        return lo != null && lo.inetAddresses().anyMatch(a -> a instanceof Inet6Address && a.isLoopbackAddress());
    }
}
