package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kill -9 of real worker JVMs in the middle of a stream of allreduces, triggered by what the workers print (an
 * event, never a timer): {@code nexar launch} and {@code nexar bench} run as separate processes with the recovery
 * settings in their environment, as a user would run them.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KillTest {
    private static final Pattern PID = Pattern.compile("^rank=(\\d+) pid=(\\d+)$");
    private static final Map<String, String> HEARTBEATS = Map.of("NEXAR_HEARTBEAT_INTERVAL", "500ms",
            "NEXAR_HEARTBEAT_TIMEOUT", "3s");

    /** A CLI run in its own JVM; every output line is kept with the time it arrived. */
    private static final class Cli {
        record Line(long nanos, String text) {
        }

        final Process process;
        final List<Line> lines = new CopyOnWriteArrayList<>();
        final Map<Integer, Long> pids = new ConcurrentHashMap<>();
        final Thread pump;

        Cli(Map<String, String> env, BiConsumer<Cli, String> onLine, String... args) throws IOException {
            var cmd = new ArrayList<String>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    NexarCli.class.getName()));
            cmd.addAll(List.of(args));
            var pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().putAll(env);
            process = pb.start();
            process.getOutputStream().close();
            pump = Thread.ofPlatform().daemon().start(() -> {
                try (var r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        lines.add(new Line(System.nanoTime(), line));
                        System.out.println("cli> " + line);
                        Matcher m = PID.matcher(line);
                        if (m.matches()) {
                            pids.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
                        }
                        onLine.accept(this, line);
                    }
                } catch (IOException e) {
                    // the process ended
                }
            });
        }

        /** SIGKILL to the worker of rank {@code rank}; returns when it was sent. */
        long kill(int rank) {
            long pid = pids.get(rank);
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL on Linux
            System.out.println("test> kill -9 rank " + rank + " pid " + pid);
            return System.nanoTime();
        }

        int await() throws InterruptedException {
            if (!process.waitFor(180, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the CLI did not exit within 180s");
            }
            pump.join(10_000);
            return process.exitValue();
        }

        /** The first line matching {@code regex} after {@code sinceNanos}. */
        Line first(String regex, long sinceNanos) {
            Pattern p = Pattern.compile(regex);
            return lines.stream().filter(l -> l.nanos() >= sinceNanos && p.matcher(l.text()).find()).findFirst()
                    .orElseThrow(() -> new AssertionError("no line matches " + regex));
        }

        boolean any(String regex) {
            Pattern p = Pattern.compile(regex);
            return lines.stream().anyMatch(l -> p.matcher(l.text()).find());
        }
    }

    private static Map<String, String> env(String policy) {
        var env = new java.util.HashMap<>(HEARTBEATS);
        env.put("NEXAR_RECOVERY_POLICY", policy);
        return env;
    }

    @Test
    void shouldFailEverySurvivorNamingTheKilledRankUnderAbort() throws Exception {
        long[] killedAt = {0};
        var cli = new Cli(env("abort"), (c, line) -> {
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
        var cli = new Cli(env("automatic"), (c, line) -> {
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
        var cli = new Cli(env("abort"), (c, line) -> {
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
        assertThat(exitedAt - killedAt[0]).isLessThan(TimeUnit.SECONDS.toNanos(4));
        for (int r : new int[] {0, 1, 3}) {
            assertThat(cli.first("^\\[rank " + r + "\\] nexar bench: failed during .*rank 2", killedAt[0]))
                    .isNotNull();
        }
    }
}
