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

    @Test
    void shouldFormAClusterOverIpv6Loopback() throws Exception {
        Assumptions.assumeTrue(hasIpv6Loopback(), "no ::1 on this machine");
        int code = run("launch", "-n", "4", "--host", "::1", "io.nexar.examples.Barrier");
        assertThat(code).as(out() + err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out()).contains("[rank 3] rank 3 passed barrier 2", "[rank 0] rank 0 passed barrier 2");
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
