package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.Nexar;
import io.nexar.NexarConfig;
import io.nexar.transport.quic.security.JoinToken;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Setting {@code formation.timeout} bounds {@link Nexar#join(String, int, NexarConfig)} (issue 18 item 3). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FormationTimeoutTest {

    @Test
    void joinGivesUpAtTheConfiguredFormationTimeout() throws Exception {
        int port;
        try (var s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: no seed listens there
        }
        String join = "nexar://127.0.0.1:" + port + "?token=" + JoinToken.generate().encoded() + "&ca=sha256:"
                + "ab".repeat(32);
        var config = NexarConfig.builder().ignoreEnvironment()
                .environment(Map.of("NEXAR_FORMATION_TIMEOUT", "2s")).build();
        assertThat(config.formationTimeout()).isEqualTo(Duration.ofSeconds(2));

        long start = System.nanoTime();
        assertThatThrownBy(() -> Nexar.join(join, -1, config)).isInstanceOf(ClusterFormationException.class)
                .hasMessageContaining("seed at 127.0.0.1:" + port + " unreachable after ")
                .hasMessageContaining(" within 2s: ");
        // far below the 60s default (generous for a loaded machine)
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
        assertThat(NexarConfig.defaults().formationTimeout()).isEqualTo(Nexar.DEFAULT_FORMATION_TIMEOUT)
                .isEqualTo(Duration.ofSeconds(60));
    }
}
