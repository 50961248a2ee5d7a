package io.nexar.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A process started by a test, with its output (stdout and stderr merged) captured line by line together with the
 * {@link System#nanoTime()} at which each line arrived, and echoed to this JVM's stdout prefixed with
 * {@code [name]} so a CI log shows what each process did.
 *
 * <p>Its standard input stays open: the programs started by the network tests ({@code NetCheck},
 * {@code nfq_delay.py}) exit when it reaches end of file, so nothing outlives this JVM even if it is killed before
 * {@link #close()}. {@link #close()} kills the process by its PID if it is still alive.
 */
public final class LabProcess implements AutoCloseable {
    /** One line of output and when it arrived. */
    public record Line(long nanos, String text) {
    }

    private final String name;
    private final Process process;
    private final List<Line> lines = new ArrayList<>();
    private final Thread pump;
    private boolean ended;

    private LabProcess(String name, Process process, PrintStream echo) {
        this.name = name;
        this.process = process;
        this.pump = Thread.ofPlatform().daemon().name("lab-" + name + "-output").start(() -> pump(echo));
    }

    /**
     * JVM options for the short-lived JVMs of these tests, four or five at a time on two cores: C1 only and the
     * serial collector need much less CPU to start (a 4-rank launch about 40% less) and change no result.
     */
    public static final List<String> FAST_START = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /**
     * Starts {@code command} with this JVM's environment minus every {@code NEXAR_*} variable (so a developer's
     * settings cannot change a test), plus {@code env}.
     */
    public static LabProcess start(String name, List<String> command, Map<String, String> env) throws IOException {
        var pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("NEXAR_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        System.out.println("lab: started " + name + " pid=" + p.pid() + ": " + String.join(" ", command)
                .replace(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                        "<test class path>"));
        return new LabProcess(name, p, System.out);
    }

    private void pump(PrintStream echo) {
        try (var reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                long now = System.nanoTime();
                echo.println("[" + name + "] " + line);
                synchronized (lines) {
                    lines.add(new Line(now, line));
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            // The pipe broke because the process was killed: no more output.
        } finally {
            synchronized (lines) {
                ended = true;
                lines.notifyAll();
            }
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Completes when the process exits. */
    public java.util.concurrent.CompletableFuture<Process> onExit() {
        return process.onExit();
    }

    /**
     * Waits until a line matching {@code condition} has arrived (returns it), the output ends (empty) or
     * {@code timeout} passes (empty).
     */
    public Optional<Line> awaitLine(Predicate<String> condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            int seen = 0;
            while (true) {
                for (; seen < lines.size(); seen++) {
                    if (condition.test(lines.get(seen).text())) {
                        return Optional.of(lines.get(seen));
                    }
                }
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    return Optional.empty();
                }
                TimeUnit.NANOSECONDS.timedWait(lines, left);
            }
        }
    }

    /** The first line so far that matches, if any. */
    public Optional<Line> firstLine(Predicate<String> condition) {
        synchronized (lines) {
            return lines.stream().filter(l -> condition.test(l.text())).findFirst();
        }
    }

    /** Waits for the process to exit; its exit code, or empty if it is still running after {@code timeout}. */
    public OptionalInt awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return OptionalInt.empty();
        }
        pump.join(Duration.ofSeconds(5));
        return OptionalInt.of(process.exitValue());
    }

    /** Closes the process's standard input: the programs started here exit on end of file. */
    public void closeInput() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // Already closed or the process is gone: either way it sees end of file.
        }
    }

    /** Every line so far, joined: for assertion messages. */
    public String output() {
        synchronized (lines) {
            var sb = new StringBuilder();
            for (Line l : lines) {
                sb.append('[').append(name).append("] ").append(l.text()).append('\n');
            }
            return sb.toString();
        }
    }

    /**
     * Kills the process by its PID if it is still alive, and waits (bounded) for it to be gone. Idempotent. Not
     * interruptible, so that clean-up completes after a test's timeout interrupted it; the interrupt is kept.
     */
    @Override
    public void close() {
        closeInput();
        if (process.isAlive()) {
            System.out.println("lab: killing " + name + " pid=" + process.pid());
            process.destroyForcibly();
        }
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                if (!process.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                    throw new IllegalStateException(name + " pid=" + process.pid() + " still alive 10 s after SIGKILL");
                }
                pump.join(Duration.ofSeconds(5));
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
