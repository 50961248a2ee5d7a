package io.nexar.it.netns;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.it.LabProcess;
import io.nexar.transport.quic.security.JoinToken;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 17 item 3: a multi-host run without a seed process. Four ranks, each in its own network namespace (its own
 * host: its own address, 198.18.R.2, and no loopback shortcut to the others), get only what torchrun, srun or a
 * Kubernetes Job gives them: {@code MASTER_ADDR} (rank 0's address), {@code MASTER_PORT}, {@code WORLD_SIZE},
 * {@code RANK} and {@code NEXAR_TOKEN}. Rank 0 starts the seed in its own process; every rank checks every collective
 * at 8 B and 64 KiB. See docs/network-tests.md.
 */
class SeedlessNetnsIT {
    private static final int WORLD = 4;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void fourHostsFormFromTheLauncherVariablesAloneAndPassEveryCollective() throws Exception {
        try (var lab = NetnsLab.create(WORLD)) {
            var cluster = NetnsCluster.seedless(lab, WORLD, 29500, JoinToken.generate().encoded());
            List<LabProcess> ranks = cluster.startRanks(Map.of("NEXAR_COLLECTIVE_TIMEOUT", "60s",
                    "NEXAR_P2P_TIMEOUT", "60s"), List.of("collectives", "sizes=8,65536", "rounds=1", "hold=true",
                    "limit=150s"));
            for (int r = 0; r < WORLD; r++) {
                Optional<LabProcess.Line> end = ranks.get(r).awaitLine(l -> l.startsWith("holding")
                        || l.startsWith("FAILED") || l.startsWith("MISMATCH"), Duration.ofSeconds(150));
                assertThat(end).as("rank %d finished its checks\n%s", r, cluster.output()).isPresent();
                assertThat(end.get().text()).as("rank %d\n%s", r, cluster.output()).startsWith("holding");
            }
            cluster.ranks().forEach(LabProcess::closeInput);
            int[] codes = cluster.awaitExit(Duration.ofSeconds(30), false);
            for (int r = 0; r < WORLD; r++) {
                assertThat(codes[r]).as("exit code of rank %d (-1: still running)\n%s", r, cluster.output())
                        .isZero();
                assertThat(ranks.get(r).firstLine(l -> l.startsWith("done checked="))).as("rank %d", r).isPresent();
            }
        }
    }
}
