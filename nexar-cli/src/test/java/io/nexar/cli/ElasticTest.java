package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Elastic membership with real JVMs over loopback QUIC: {@code nexar launch -n 3 --elastic} runs three workers doing
 * checked allreduces; once they wait at a grow point (an event they print), a fourth joins with
 * {@code nexar worker --join ... --elastic}; all four continue; then rank 1 leaves politely and three continue. And
 * the scheduler's case: a worker is killed, the others recover (policy automatic), and a replacement started with
 * {@code --elastic} brings the world back to four.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ElasticTest {
    private static final Pattern JOIN = Pattern.compile("^join: (nexar://\\S+)$");
    private static final Map<String, String> ENV = Map.of("NEXAR_RECOVERY_POLICY", "automatic",
            "NEXAR_HEARTBEAT_INTERVAL", "500ms", "NEXAR_HEARTBEAT_TIMEOUT", "3s");

    @Test
    void shouldAdmitAFourthWorkerAndContinueAfterAPoliteLeave() throws Exception {
        var join = new CompletableFuture<String>();
        var newcomer = new CompletableFuture<CliProcess>();
        String[] program = {ElasticChild.class.getName(), "60", "5", "10", "30"};
        var launch = new CliProcess(ENV, (c, line) -> {
            joinOnWait(ENV, line, join, newcomer, program); // the event: the members wait at their grow point
        }, concat(new String[] {"launch", "-n", "3", "--elastic"}, program));
        CliProcess worker = null;
        try {
            int launched = launch.await();
            worker = newcomer.get(10, TimeUnit.SECONDS);
            int joined = worker.await();
            assertThat(join).isDone();
            assertThat(launch.any("WRONG") || worker.any("WRONG")).as("every result checked").isFalse();
            for (int r = 0; r < 3; r++) {
                assertThat(launch.first("^\\[rank " + r + "\\] grew 3 -> 4 at step 10 \\(joined now: false\\)$", 0))
                        .isNotNull();
            }
            assertThat(worker.first("grew 3 -> 4 at step 10 \\(joined now: true\\)$", 0)).isNotNull();
            assertThat(worker.first("step 10 size 4 rank 3$", 0)).isNotNull();
            assertThat(launch.first("^\\[rank 1\\] leaving at step 30$", 0)).isNotNull();
            // the three that stayed: old ranks 0 and 2 and the newcomer, renumbered 0, 1, 2
            assertThat(launch.first("^\\[rank 0\\] step 59 size 3 rank 0$", 0)).isNotNull();
            assertThat(launch.first("^\\[rank 2\\] step 59 size 3 rank 1$", 0)).isNotNull();
            assertThat(worker.first("step 59 size 3 rank 2$", 0)).isNotNull();
            assertThat(launch.first("^\\[rank 0\\] done size=3 rank=0$", 0)).isNotNull();
            assertThat(worker.first("done size=3 rank=2$", 0)).isNotNull();
            assertThat(launched).as("nexar launch exit code").isZero();
            assertThat(joined).as("nexar worker exit code").isZero();
        } finally {
            launch.destroy();
            if (worker != null) {
                worker.destroy();
            }
        }
    }

    /**
     * On a sparse topology ({@code k-regular:2}, a ring: rank 2 relays between ranks 1 and 3): the kill leaves the
     * path 3-0-1, and the replacement (world rank 4) joins the ring of five as the neighbour of ranks 3 and 0, the only
     * members that open a link to it; the others reach it through relays.
     */
    @Test
    void shouldAdmitAReplacementForAKilledWorker() throws Exception {
        var env = new java.util.HashMap<>(ENV);
        env.put("NEXAR_TOPOLOGY", "k-regular:2"); // the newcomer too: every process of a job has the same topology
        var join = new CompletableFuture<String>();
        var replacement = new CompletableFuture<CliProcess>();
        long[] killedAt = {0};
        String[] program = {ElasticChild.class.getName(), "40", "5", "15", "-1"};
        var launch = new CliProcess(env, (c, line) -> {
            if (killedAt[0] == 0 && line.startsWith("[rank 2] step 5 ")) {
                killedAt[0] = c.kill(2); // as a node failure would
            } else {
                // as a scheduler restarting the failed task would
                joinOnWait(env, line, join, replacement, program);
            }
        }, concat(new String[] {"launch", "-n", "4", "--elastic"}, program));
        CliProcess worker = null;
        try {
            int launched = launch.await();
            worker = replacement.get(10, TimeUnit.SECONDS);
            int joined = worker.await();
            assertThat(killedAt[0]).as("rank 2 was killed").isPositive();
            assertThat(launch.any("WRONG") || worker.any("WRONG")).as("every result checked").isFalse();
            assertThat(launch.first("^\\[rank 0\\] event Rebuilt\\[.*failed=\\[2\\].*size=3", killedAt[0]))
                    .isNotNull();
            assertThat(launch.first("^\\[rank 0\\] grew 3 -> 4 at step 15 \\(joined now: false\\)$", 0))
                    .isNotNull();
            assertThat(worker.first("grew 3 -> 4 at step 15 \\(joined now: true\\)$", 0)).isNotNull();
            // the survivors keep ranks 0, 1, 2 (world ranks 0, 1, 3); the replacement is rank 3 (world rank 4)
            assertThat(launch.first("^\\[rank 3\\] step 39 size 4 rank 2$", 0)).isNotNull();
            assertThat(worker.first("step 39 size 4 rank 3$", 0)).isNotNull();
            assertThat(worker.first("done size=4 rank=3$", 0)).isNotNull();
            assertThat(launched).as("nexar launch: rank 2 was killed").isEqualTo(1);
            assertThat(joined).as("nexar worker exit code").isZero();
        } finally {
            launch.destroy();
            if (worker != null) {
                worker.destroy();
            }
        }
    }

    /**
     * Reacts to a line of {@code nexar launch --elastic}: keeps the join string, and once rank 0 prints that the
     * members wait for a newcomer, starts {@code nexar worker --join ... --elastic} with {@code program} (once).
     */
    private static void joinOnWait(Map<String, String> env, String line, CompletableFuture<String> join,
                                   CompletableFuture<CliProcess> worker, String[] program) {
        Matcher m = JOIN.matcher(line);
        if (m.matches()) {
            join.complete(m.group(1));
        } else if (line.equals("[rank 0] waiting for a newcomer") && !worker.isDone()) {
            try {
                worker.complete(new CliProcess(env, (w, l) -> { }, concat(new String[] {"worker", "--join",
                        join.getNow(null), "--elastic"}, program)));
            } catch (java.io.IOException e) {
                worker.completeExceptionally(e);
            }
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
