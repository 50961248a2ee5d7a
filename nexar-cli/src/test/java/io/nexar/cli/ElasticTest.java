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
 * {@code nexar worker --join ... --elastic}; all four continue; then rank 1 leaves politely and three continue.
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
            Matcher m = JOIN.matcher(line);
            if (m.matches()) {
                join.complete(m.group(1));
            } else if (line.equals("[rank 0] waiting for a newcomer") && !newcomer.isDone()) {
                try { // the event: the three members wait at their grow point
                    newcomer.complete(new CliProcess(ENV, (w, l) -> { }, concat(new String[] {"worker", "--join",
                            join.getNow(null), "--elastic"}, program)));
                } catch (java.io.IOException e) {
                    newcomer.completeExceptionally(e);
                }
            }
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

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
