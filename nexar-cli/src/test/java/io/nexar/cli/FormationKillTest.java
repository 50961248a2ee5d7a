package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.transport.quic.formation.SeedOptions;
import io.nexar.transport.quic.formation.SeedServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kill -9 of a real worker JVM after it enrolled at the seed and before the cluster formed (issue 16): the worker
 * still waiting at the seed must fail within the seed's vacancy timeout (here the 3 s heartbeat timeout nexar launch
 * uses), naming the worker that left, not at the formation deadline.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FormationKillTest {
    private static final Duration VACANCY = Duration.ofSeconds(3);

    @Test
    void shouldFailTheWaitingWorkerWithinTheVacancyTimeoutWhenAnEnrolledWorkerIsKilled() throws Exception {
        var options = SeedOptions.builder(3).bind("127.0.0.1:0").formationDeadline(Duration.ofSeconds(150))
                .vacancyTimeout(VACANCY).build();
        try (var seed = SeedServer.start(options)) {
            Process victim = worker(seed.joinString());
            Process survivor = null;
            try {
                awaitJoined(seed, 1);
                survivor = worker(seed.joinString());
                var output = collect(survivor);
                awaitJoined(seed, 2); // both enrolled; the third worker never comes

                long killedAt = System.nanoTime();
                victim.destroyForcibly(); // SIGKILL
                System.out.println("test> kill -9 of worker pid " + victim.pid());
                assertThat(survivor.waitFor(60, TimeUnit.SECONDS)).as("the waiting worker exits").isTrue();
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
                String text = output.get(10, TimeUnit.SECONDS);
                System.out.println("test> the waiting worker exited " + survivor.exitValue() + " " + ms
                        + " ms after the kill");
                assertThat(survivor.exitValue()).isNotZero();
                assertThat(text).contains("ClusterFormationException").contains("left before the cluster formed")
                        .contains("1 of 3 workers joined");
                assertThat(ms).as("vacancy 3 s plus the JVM's exit, far below the 150 s deadline")
                        .isLessThan(VACANCY.toMillis() + 10_000);
            } finally {
                victim.destroyForcibly();
                if (survivor != null) {
                    survivor.destroyForcibly();
                }
            }
        }
    }

    private static Process worker(String join) throws IOException {
        return CliProcess.recoveryWorker(join, "3");
    }

    /** Everything {@code p} prints, once it ends. */
    private static CompletableFuture<String> collect(Process p) {
        var text = new CompletableFuture<String>();
        Thread.ofPlatform().daemon().start(() -> {
            var sb = new StringBuilder();
            try (var r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    System.out.println("worker> " + line);
                    sb.append(line).append('\n');
                }
            } catch (IOException e) {
                // the process ended
            }
            text.complete(sb.toString());
        });
        return text;
    }

    /** Waits until the seed has admitted {@code n} workers (its state, not a timer), at most 90 s (JVM start-up). */
    private static void awaitJoined(SeedServer seed, int n) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (seed.joined() < n) {
            assertThat(System.nanoTime()).as("%d workers enrolled", n).isLessThan(end);
            LockSupport.parkNanos(1_000_000);
        }
    }
}
