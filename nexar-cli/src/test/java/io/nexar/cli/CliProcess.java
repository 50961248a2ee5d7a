package io.nexar.cli;

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

/**
 * A CLI run in its own JVM, as a user runs it, for the multi-process tests: every output line is kept with the time
 * it arrived, {@code rank=R pid=PID} lines give the workers' pids, and {@code onLine} sees each line as it arrives
 * (where tests trigger faults: on events, never on timers).
 */
final class CliProcess {
    private static final Pattern PID = Pattern.compile("^rank=(\\d+) pid=(\\d+)$");
    /**
     * JVM options of the JVMs the tests start themselves (the command's own workers get them from the
     * NEXAR_WORKER_JAVA_OPTS of this module's surefire configuration): C1 only and the serial collector start a
     * short-lived JVM with much less CPU on a 2-core machine, and change nothing a test checks.
     */
    static final List<String> FAST_START = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /** The command that runs {@code mainClass} with {@code args} in a JVM of its own on this JVM's class path. */
    static List<String> javaCommand(String mainClass, String... args) {
        var cmd = new ArrayList<String>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(FAST_START);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * A worker JVM that joins with {@code Nexar.join()} ({@link RecoveryChild} with {@code args}) through
     * {@code join}, heartbeat interval 500 ms and timeout 3 s, its output merged into one stream.
     */
    static Process recoveryWorker(String join, String... args) throws IOException {
        var pb = new ProcessBuilder(javaCommand(RecoveryChild.class.getName(), args)).redirectErrorStream(true);
        pb.environment().put("NEXAR_JOIN", join);
        pb.environment().put("NEXAR_HEARTBEAT_TIMEOUT", "3s");
        pb.environment().put("NEXAR_HEARTBEAT_INTERVAL", "500ms");
        Process p = pb.start();
        p.getOutputStream().close();
        return p;
    }

    record Line(long nanos, String text) {
    }

    final Process process;
    final List<Line> lines = new CopyOnWriteArrayList<>();
    final Map<Integer, Long> pids = new ConcurrentHashMap<>();
    final Thread pump;

    CliProcess(Map<String, String> env, BiConsumer<CliProcess, String> onLine, String... args) throws IOException {
        this(List.of(), env, onLine, args);
    }

    /** A CLI run whose JVM gets {@code jvmOptions} (system properties, for example) before its main class. */
    CliProcess(List<String> jvmOptions, Map<String, String> env, BiConsumer<CliProcess, String> onLine,
               String... args) throws IOException {
        var cmd = javaCommand(NexarCli.class.getName(), args);
        cmd.addAll(1, jvmOptions);
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

    /** Ends this CLI if it still runs (test cleanup). */
    void destroy() {
        process.destroyForcibly();
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
