package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kill -9 of real worker JVMs in the middle of a stream of allreduces, triggered by what the workers print (an
 * event, never a timer): {@code nexar launch} and {@code nexar bench} run as separate processes with the recovery
 * settings in their environment, as a user would run them.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KillTest {
    private static final Map<String, String> HEARTBEATS = Map.of("NEXAR_HEARTBEAT_INTERVAL", "500ms",
            "NEXAR_HEARTBEAT_TIMEOUT", "3s");

    private static Map<String, String> env(String policy) {
        var env = new java.util.HashMap<>(HEARTBEATS);
        env.put("NEXAR_RECOVERY_POLICY", policy);
        return env;
    }

    @Test
    void shouldFailEverySurvivorNamingTheKilledRankUnderAbort() throws Exception {
        long[] killedAt = {0};
        var cli = new CliProcess(env("abort"), (c, line) -> {
            if (killedAt[0] == 0 && line.startsWith("[rank 2] iteration 5 ")) {
                killedAt[0] = c.kill(2);
            }
        }, "launch", "-n", "4", RecoveryChild.class.getName(), "100000");

        assertThat(cli.await()).isEqualTo(1);
        assertThat(killedAt[0]).as("rank 2 was killed").isPositive();
        for (int r : new int[] {0, 1, 3}) {
            var failed = cli.first("^\\[rank " + r + "\\] failed at \\d+: .*rank 2", killedAt[0]);
            long ms = TimeUnit.NANOSECONDS.toMillis(failed.nanos() - killedAt[0]);
            System.out.println("test> rank " + r + " reported rank 2 after " + ms + " ms: " + failed.text());
            assertThat(ms).as("heartbeat timeout 3s + 1s").isLessThan(4000);
        }
    }

    @Test
    void shouldContinueWithTheSurvivorsAfterTwoKillsUnderAutomatic() throws Exception {
        long[] killedAt = {0, 0};
        int[] sizeThree = {0};
        var cli = new CliProcess(env("automatic"), (c, line) -> {
            if (killedAt[0] == 0 && line.startsWith("[rank 2] iteration 5 ")) {
                killedAt[0] = c.kill(2);
            } else if (killedAt[0] != 0 && killedAt[1] == 0 && line.matches("^\\[rank 3\\] iteration \\d+ size 3$")
                    && ++sizeThree[0] == 5) {
                killedAt[1] = c.kill(3); // the second failure, after 5 steps on the rebuilt communicator
            }
        }, "launch", "-n", "4", RecoveryChild.class.getName(), "60");

        int code = cli.await();
        assertThat(killedAt[1]).as("rank 3 was killed after the first recovery").isPositive();
        assertThat(code).as("two ranks were killed").isEqualTo(1);
        assertThat(cli.any("WRONG")).as("every result checked").isFalse();
        assertThat(cli.first("^\\[rank 0\\] done size=2 rank=0$", 0)).isNotNull();
        assertThat(cli.first("^\\[rank 1\\] done size=2 rank=1$", 0)).isNotNull();
        assertThat(cli.first("^\\[rank 0\\] event Rebuilt\\[.*failed=\\[2\\].*size=3", killedAt[0])).isNotNull();
        assertThat(cli.first("^\\[rank 1\\] event Rebuilt\\[.*failed=\\[2\\].*size=2", killedAt[1])).isNotNull();
        assertThat(cli.any("^\\[rank 0\\] iteration 59 size 2$")).isTrue();
    }

    @Test
    void shouldMakeBenchExitWithEverySurvivorsErrorWhenARankIsKilled() throws Exception {
        long[] killedAt = {0};
        var cli = new CliProcess(env("abort"), (c, line) -> {
            // kill rank 2 once the stream of timed allreduces runs
            if (killedAt[0] == 0 && line.startsWith("[rank 0] bench: allreduce 1048576 B: warmed up")) {
                killedAt[0] = c.kill(2);
            }
        }, "bench", "--np", "4", "--op", "allreduce", "--sizes", "1048576", "--iters", "1000000");

        int code = cli.await();
        long exitedAt = System.nanoTime();
        assertThat(killedAt[0]).as("rank 2 was killed").isPositive();
        assertThat(code).isNotZero();
        System.out.println("test> bench exited " + TimeUnit.NANOSECONDS.toMillis(exitedAt - killedAt[0])
                + " ms after the kill");
        for (int r : new int[] {0, 1, 3}) {
            var failed = cli.first("^\\[rank " + r + "\\] nexar bench: failed during .*rank 2", killedAt[0]);
            assertThat(failed).isNotNull();
            assertThat(failed.nanos() - killedAt[0]).as("rank %d reports rank 2 within heartbeat timeout 3s + 1s", r)
                    .isLessThan(TimeUnit.SECONDS.toNanos(4));
        }
        // Exiting can take longer than reporting: when a survivor's first sign of the death is a failed write
        // ("Broken pipe"), its process has been seen to exit 4.7-5.6 s after the kill (issue 16 item 5, open).
        assertThat(exitedAt - killedAt[0]).isLessThan(TimeUnit.SECONDS.toNanos(10));
    }
}
