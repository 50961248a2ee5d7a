package io.nexar.transport.quic.formation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.transport.quic.security.JoinToken;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18 item 5: a worker whose seed is not there says so while it retries ("waiting for seed 127.0.0.1:7000 (10s
 * of 60s)", every 10 s by default), and its final error prints the deadline as {@code 5s}, not {@code PT5S}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WaitingForSeedTest {

    @Test
    void shouldReportProgressWhileTheSeedIsUnreachable() throws Exception {
        int port;
        try (var s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        String join = "nexar://127.0.0.1:" + port + "?token=" + JoinToken.generate().encoded() + "&ca=sha256:"
                + "ab".repeat(32);
        List<String> progress = new CopyOnWriteArrayList<>();
        var quic = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        assertThatThrownBy(() -> WorkerEnrolment.attempt(join, -1, quic, null, Duration.ofSeconds(5), false,
                Duration.ofMillis(500), progress::add))
                .isInstanceOf(ClusterFormationException.class)
                .hasMessageContaining("seed at 127.0.0.1:" + port + " unreachable after ")
                .hasMessageContaining(" within 5s: ")
                .hasMessageNotContaining("PT5S");
        assertThat(progress).hasSizeGreaterThanOrEqualTo(2)
                .allMatch(l -> l.matches("waiting for seed 127\\.0\\.0\\.1:" + port + " \\(\\d+s of 5s\\): .+"),
                        "progress lines such as 'waiting for seed 127.0.0.1:" + port + " (1s of 5s): ...'");
        assertThat(WorkerEnrolment.PROGRESS_EVERY).isEqualTo(Duration.ofSeconds(10));
    }
}
