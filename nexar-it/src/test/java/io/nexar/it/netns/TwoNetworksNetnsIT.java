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
 * Issue 17 item 4: multi-NIC hosts. Every rank has two interfaces: 198.18.R.2 (where the launcher's
 * {@code MASTER_ADDR} is, and the default route) and 198.19.R.2 (a data network). The router forwards only the seed's
 * TCP port on the first network, so the ranks can enrol there but reach each other only on the second, which they
 * are told to use with {@code NEXAR_BIND_ADDRESS=198.19.R.2} alone. Without the setting they would publish, and dial,
 * their first-network addresses (those the seed sees), and formation would fail. See docs/network-tests.md.
 */
class TwoNetworksNetnsIT {
    private static final int WORLD = 3;
    private static final int SEED_PORT = 29500;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void ranksBoundToTheSecondNetworkFormAndRunCollectivesOverIt() throws Exception {
        try (var lab = NetnsLab.create(WORLD)) {
            lab.addSecondNetwork();
            System.out.println("lab: first network filtered: " + lab.firstNetworkOnlyTcp(SEED_PORT));
            var cluster = NetnsCluster.seedless(lab, WORLD, SEED_PORT, JoinToken.generate().encoded());
            List<LabProcess> ranks = cluster.startRanks(r -> Map.of("NEXAR_BIND_ADDRESS", lab.secondAddress(r),
                    "NEXAR_COLLECTIVE_TIMEOUT", "60s", "NEXAR_P2P_TIMEOUT", "60s"),
                    List.of("collectives", "sizes=8,65536", "rounds=1", "hold=true", "limit=150s"));
            for (int r = 0; r < WORLD; r++) {
                Optional<LabProcess.Line> end = ranks.get(r).awaitLine(l -> l.startsWith("holding")
                        || l.startsWith("FAILED") || l.startsWith("MISMATCH"), Duration.ofSeconds(150));
                assertThat(end).as("rank %d finished its checks\n%s\n%s", r, cluster.output(), lab.rules())
                        .isPresent();
                assertThat(end.get().text()).as("rank %d\n%s", r, cluster.output()).startsWith("holding");
            }
            cluster.ranks().forEach(LabProcess::closeInput);
            int[] codes = cluster.awaitExit(Duration.ofSeconds(30), false);
            for (int r = 0; r < WORLD; r++) {
                assertThat(codes[r]).as("exit code of rank %d (-1: still running)\n%s", r, cluster.output())
                        .isZero();
            }
            System.out.println("lab: rules after the run\n" + lab.rules());
        }
    }
}
