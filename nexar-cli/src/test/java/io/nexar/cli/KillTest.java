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

    /**
     * The shipped ElasticTraining example under automatic (issue 16: it used to end at the first call after a kill,
     * since it took the announcement of the rebuild for an error): the survivors finish with the same checksum.
     */
    @Test
    void shouldKeepElasticTrainingGoingWithTheSameModelAfterAKillUnderAutomatic() throws Exception {
        long[] killedAt = {0};
        var cli = new CliProcess(env("automatic"), (c, line) -> {
            if (killedAt[0] == 0 && line.startsWith("[rank 2] step 200 ")) {
                killedAt[0] = c.kill(2);
            }
        }, "launch", "-n", "4", "io.nexar.examples.ElasticTraining", "1000");

        int code = cli.await();
        assertThat(killedAt[0]).as("rank 2 was killed").isPositive();
        assertThat(code).as("one rank was killed").isEqualTo(1);
        String checksum = null;
        for (int r : new int[] {0, 1, 3}) {
            var recovered = cli.first("^\\[rank " + r + "\\] rank \\d: recovered at step \\d+: size 3", killedAt[0]);
            assertThat(recovered).as("rank %d recovered", r).isNotNull();
            assertThat(recovered.nanos() - killedAt[0]).as("rank %d within heartbeat timeout 3s + 1s", r)
                    .isLessThan(TimeUnit.SECONDS.toNanos(4));
            var done = cli.first("^\\[rank " + r + "\\] rank \\d of 3: 1000 steps, model checksum ", killedAt[0]);
            assertThat(done).as("rank %d finished", r).isNotNull();
            String mine = done.text().substring(done.text().indexOf("checksum "));
            if (checksum == null) {
                checksum = mine;
            }
            assertThat(mine).as("rank %d's model", r).isEqualTo(checksum);
        }
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
        // Before issue 16 item 5 was fixed, a survivor whose first sign of the death was a failed write ("Broken
        // pipe") and which closed within the bulk lane's grace period waited for the dead rank's goodbye for 4 s of
        // close.timeout, so the bench exited 4.7-5.6 s after the kill (QuicAbruptEndTest has the in-process case).
        assertThat(exitedAt - killedAt[0]).as("the bench exits within heartbeat timeout 3s + 1s")
                .isLessThan(TimeUnit.SECONDS.toNanos(4));
    }
}
