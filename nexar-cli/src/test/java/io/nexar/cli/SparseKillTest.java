package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kill -9 of a relay hop in a sparse topology across real processes (issue 15): six JVMs on a ring
 * ({@code NEXAR_TOPOLOGY=k-regular:2}: rank 1 links to ranks 0 and 2 only, and relays between them), a stream of
 * allreduces ({@link RecoveryChild}), rank 1 killed once it runs. Every survivor must fail with a peer failure naming
 * rank 1, the rank that died: its neighbours from their own links, the others from the notices their neighbours send
 * before they fail and exit.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SparseKillTest {

    @Test
    void shouldNameTheKilledRelayOnEverySurvivor() throws Exception {
        long[] killedAt = {0};
        var cli = new CliProcess(Map.of("NEXAR_TOPOLOGY", "k-regular:2", "NEXAR_RECOVERY_POLICY", "abort",
                "NEXAR_HEARTBEAT_INTERVAL", "500ms", "NEXAR_HEARTBEAT_TIMEOUT", "5s"), (c, line) -> {
                    if (killedAt[0] == 0 && line.startsWith("[rank 1] iteration 5 ")) {
                        killedAt[0] = c.kill(1);
                    }
                }, "launch", "-n", "6", RecoveryChild.class.getName(), "100000");
        try {
            assertThat(cli.await()).isEqualTo(1);
            assertThat(killedAt[0]).as("rank 1 was killed").isPositive();
            assertThat(cli.any("WRONG")).as("every result checked").isFalse();
            for (int r : new int[] {0, 2, 3, 4, 5}) {
                var failed = cli.first("^\\[rank " + r + "\\] failed at \\d+: ", killedAt[0]);
                System.out.println("test> rank " + r + " after " + TimeUnit.NANOSECONDS.toMillis(failed.nanos()
                        - killedAt[0]) + " ms: " + failed.text());
                assertThat(failed.text()).as("rank %d fails as a peer failure", r).contains("cannot complete: ");
                // its neighbours (0, 2) see it die on their own links: "cannot complete: rank 1 ended its bulk lane
                // ..." or "... writing rank 1's bulk lane failed: ... Broken pipe"; ranks 3-5 hold no link to it and
                // hear of it from a neighbour ("rank 1 ... (reported by world rank 2)"), which tells them before it
                // fails (and this program exits at once, System.exit without close): the cause, not the cascade
                assertThat(failed.text()).as("rank %d names the killed rank", r)
                        .containsPattern("peer 1\\) cannot complete: .*\\brank 1\\b");
            }
        } finally {
            cli.destroy();
        }
    }
    /**
     * Two kills under automatic recovery on the ring of six: rank 1 (a relay hop: the five survivors rebuild, and
     * ranks 0 and 2 open a link that bridges its hole, exchanging link offers over the path 2-3-4-5-0: a ring
     * again), then, once rank 3 ran ten steps in the world of five, rank 3, the other neighbour of rank 2. Without the
     * bridge rank 2 would be cut off; with it, ranks 0, 2, 4 and 5 rebuild without rank 3 (and ranks 2 and 4 bridge
     * its hole) and all four finish with checked results.
     */
    @Test
    void shouldBridgeTheHoleOfTheFirstKillSoTheSecondCutsNobodyOff() throws Exception {
        long[] killedAt = {0, 0};
        var cli = new CliProcess(Map.of("NEXAR_TOPOLOGY", "k-regular:2", "NEXAR_RECOVERY_POLICY", "automatic",
                "NEXAR_HEARTBEAT_INTERVAL", "500ms", "NEXAR_HEARTBEAT_TIMEOUT", "5s"), (c, line) -> {
                    if (killedAt[0] == 0 && line.startsWith("[rank 1] iteration 5 ")) {
                        killedAt[0] = c.kill(1);
                    } else if (killedAt[0] != 0 && killedAt[1] == 0 && line.equals("[rank 3] iteration 15 size 5")) {
                        killedAt[1] = c.kill(3);
                    }
                }, "launch", "-n", "6", RecoveryChild.class.getName(), "40");
        try {
            int code = cli.await();
            assertThat(killedAt[0]).as("rank 1 was killed").isPositive();
            assertThat(killedAt[1]).as("rank 3 was killed").isPositive();
            assertThat(cli.any("WRONG")).as("every result checked").isFalse();
            for (int r : new int[] {0, 2, 3, 4, 5}) {
                assertThat(cli.first("^\\[rank " + r + "\\] event Rebuilt\\[.*failed=\\[1\\].*size=5", killedAt[0]))
                        .as("rank %d rebuilt the world without rank 1", r).isNotNull();
            }
            for (int r : new int[] {0, 2, 4, 5}) {
                // failed= names ranks of the world of five: world rank 3 is its rank 2
                assertThat(cli.first("^\\[rank " + r + "\\] event Rebuilt\\[.*failed=\\[2\\].*size=4",
                        killedAt[1])).as("rank %d rebuilt the world without rank 3", r).isNotNull();
                assertThat(cli.any("^\\[rank " + r + "\\] iteration 39 size 4$")).as("rank %d finished", r).isTrue();
            }
            assertThat(code).as("ranks 1 and 3 were killed, the others finished").isNotZero();
        } finally {
            cli.destroy();
        }
    }
}
