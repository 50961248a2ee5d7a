package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A sparse topology across real processes (issue 15): {@code nexar launch -n 6} with
 * {@code NEXAR_TOPOLOGY=k-regular:2} runs {@link SparseChild} in six JVMs on loopback, whose collectives and
 * point-to-point messages between non-neighbours travel through relays, and two of whose ranks close while the
 * others still need them as relays.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SparseLaunchTest {

    @Test
    void shouldRelayAcrossSixProcessesOnARingAndKeepRelayingAfterClose() throws Exception {
        // generous timeouts: six JVMs on a loaded 2-core machine (a rank may take seconds to bind its listeners after
        // enrolment, longer than the default heartbeat.timeout that formation allows a silent neighbour)
        var cli = new CliProcess(Map.of("NEXAR_TOPOLOGY", "k-regular:2", "NEXAR_COLLECTIVE_TIMEOUT", "60s",
                "NEXAR_P2P_TIMEOUT", "60s", "NEXAR_HEARTBEAT_TIMEOUT", "30s"), (c, line) -> { },
                "launch", "-n", "6", SparseChild.class.getName());
        try {
            int code = cli.await();
            assertThat(cli.any("WRONG")).as("a wrong value").isFalse();
            assertThat(code).as("exit code of nexar launch").isZero();
            for (int r = 0; r < 6; r++) {
                assertThat(cli.any("^\\[rank " + r + "\\] rank " + r + ": sparse ok$")).as("rank %d finished", r)
                        .isTrue();
            }
            for (int r : new int[] {0, 2, 3, 5}) {
                assertThat(cli.any("^\\[rank " + r + "\\] rank " + r + " exchanged across the cut")).isTrue();
            }
        } finally {
            cli.destroy();
        }
    }
}
