package io.nexar.cli;

import io.nexar.internal.config.Units;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Starts one JVM per rank and supervises them: prints {@code rank=R pid=PID} as each starts, forwards their output
 * line by line prefixed with {@code [rank R]}, and when one exits with a non-zero code, gives the others a moment to
 * report it and then stops them (politely, then forcibly after a grace period). Once they have ended, it prints their
 * hang reports grouped ({@link HangReportSummary}). Used by {@code nexar launch} (and so {@code nexar bench}),
 * {@code nexar worker} and {@code nexar demo}.
 */
final class ChildProcesses implements AutoCloseable {
    private final PrintStream out;
    private final PrintStream err;
    private final Duration grace;
    private final String label;
    private final List<Process> processes = new ArrayList<>();
    private final List<Thread> pumps = new ArrayList<>();
    /** The hang reports in the children's output, printed grouped once they have ended ({@link #await}). */
    private final HangReportSummary hangReports = new HangReportSummary();

    ChildProcesses(PrintStream out, PrintStream err, Duration grace) {
        this(out, err, grace, "rank");
    }

    /**
     * @param label what a child is called in output: {@code rank} gives {@code rank=R pid=PID} and
     *              {@code [rank R]} prefixes; an empty label prints {@code pid=PID} and forwards output unprefixed
     */
    ChildProcesses(PrintStream out, PrintStream err, Duration grace, String label) {
        this.out = out;
        this.err = err;
        this.grace = grace;
        this.label = label;
    }

    /** Environment variable with extra JVM options for every child JVM, split at whitespace (e.g. JFR). */
    static final String WORKER_JAVA_OPTS = "NEXAR_WORKER_JAVA_OPTS";

    /**
     * The command that starts a JVM running {@code mainClass} with this JVM's class path plus {@code classPath}. JVM
     * options from {@value #WORKER_JAVA_OPTS} come before the main class (a JFR file name can use {@code %p}, the
     * child's pid, to tell the ranks apart).
     */
    static List<String> javaCommand(String classPath, String mainClass, List<String> args) {
        var cmd = new ArrayList<String>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        // the SLF4J backend of this JVM (the command's own, unless -Dslf4j.provider chose another); before the extra
        // options, which may choose another one
        cmd.add("-D" + CliLogProvider.PROVIDER_PROPERTY + "="
                + System.getProperty(CliLogProvider.PROVIDER_PROPERTY, CliLogProvider.class.getName()));
        cmd.add("-D" + CliLogProvider.VERBOSITY_PROPERTY + "="
                + System.getProperty(CliLogProvider.VERBOSITY_PROPERTY, "WARN"));
        String extra = System.getenv(WORKER_JAVA_OPTS);
        if (extra != null && !extra.isBlank()) {
            cmd.addAll(List.of(extra.trim().split("\\s+")));
        }
        String own = System.getProperty("java.class.path");
        cmd.add("-cp");
        cmd.add(classPath == null || classPath.isEmpty() ? own : classPath + java.io.File.pathSeparator + own);
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /**
     * Starts {@code n} children; {@code commandForRank} and {@code envForRank} give each its command and the
     * variables added to this process's environment.
     */
    void start(int n, IntFunction<List<String>> commandForRank, IntFunction<Map<String, String>> envForRank)
            throws IOException {
        for (int rank = 0; rank < n; rank++) {
            var pb = new ProcessBuilder(commandForRank.apply(rank));
            pb.environment().putAll(envForRank.apply(rank));
            LogOptions.passOn(pb.environment());
            Process p = pb.start();
            p.getOutputStream().close();
            processes.add(p);
            synchronized (out) {
                out.println((label.isEmpty() ? "" : label + "=" + rank + " ") + "pid=" + p.pid());
            }
            pumps.add(pump(p.getInputStream(), out, rank));
            pumps.add(pump(p.getErrorStream(), err, rank));
        }
    }

    /**
     * The first lines of a hang report and of a flight recorder dump contain these; such a line and the indented
     * lines after it are forwarded as one block (not interleaved with other ranks' lines).
     */
    static final List<String> BLOCKS = List.of("nexar hang report:", "nexar flight recorder:");

    /**
     * Forwards one stream of a child, a line at a time with its prefix; a hang report or a flight recorder dump (its
     * first line and the indented lines that follow it, as far as they have arrived) as one block, so that the
     * reports of several ranks do not interleave.
     */
    private Thread pump(InputStream in, PrintStream to, int rank) {
        int source = 2 * rank + (to == err ? 1 : 0); // which stream, for the hang report summary
        return Thread.ofPlatform().daemon().name("nexar-launch-rank-" + rank + "-output").start(() -> {
            try (var reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line = reader.readLine();
                while (line != null) {
                    var block = new ArrayList<String>();
                    block.add(line);
                    line = null;
                    if (BLOCKS.stream().anyMatch(block.getFirst()::contains)) {
                        // its indented lines stay together, as far as they have arrived; never wait for more
                        while (reader.ready() && (line = reader.readLine()) != null && line.startsWith("  ")) {
                            block.add(line);
                            line = null;
                        }
                    }
                    synchronized (to) {
                        for (String l : block) {
                            to.println(label.isEmpty() ? l : "[" + label + " " + rank + "] " + l);
                        }
                    }
                    // the summary: a report block, or a late line of the report just before it
                    if (block.getFirst().contains(HangReportSummary.MARKER)) {
                        hangReports.add(block, rank, source);
                    } else if (block.getFirst().startsWith("  ")) {
                        hangReports.continued(block.getFirst(), source);
                    } else {
                        hangReports.ended(source);
                    }
                    if (line == null) { // not read ahead: wait for the next line
                        line = reader.readLine();
                    }
                }
            } catch (IOException e) {
                // The child's pipe closed: nothing more to forward.
            }
        });
    }

    /** How long the others may take to report and exit by themselves after one child failed. */
    static final Duration REPORT_GRACE = Duration.ofSeconds(10);

    /**
     * Waits until every child exits, or one fails; then gives the others {@link #REPORT_GRACE} to notice, report
     * the failure and exit by themselves (a nexar program sees a dead peer within {@code heartbeat.timeout}), and
     * stops those still running. Returns the exit codes by rank (a stopped child reports its own code, usually 143
     * or 137).
     *
     * @param timeout how long all children may run in total
     */
    int[] await(Duration timeout) throws InterruptedException {
        return await(timeout, false);
    }

    /**
     * Like {@link #await(Duration)}; with {@code keepGoing} a failed child does not stop the others (for programs
     * that recover from a lost rank: recovery policies manual and automatic).
     */
    int[] await(Duration timeout, boolean keepGoing) throws InterruptedException {
        int n = processes.size();
        var failed = new CompletableFuture<Integer>();
        var all = new ArrayList<CompletableFuture<Process>>();
        for (int rank = 0; rank < n; rank++) {
            final int r = rank;
            all.add(processes.get(rank).onExit().whenComplete((p, e) -> {
                if (p != null && p.exitValue() != 0) {
                    if (keepGoing) {
                        err.println("nexar: " + (label.isEmpty() ? "process" : label + " " + r) + " exited with code "
                                + p.exitValue() + "; the others keep running (--keep-going)");
                    } else {
                        failed.complete(r);
                    }
                }
            }));
        }
        var done = CompletableFuture.anyOf(CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)), failed);
        boolean timedOut = false;
        try {
            done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.TimeoutException e) {
            timedOut = true;
        }
        if (timedOut) {
            err.println("nexar: ranks still running after " + Units.formatRounded(timeout) + ": stopping them");
            stopAll();
        } else if (failed.isDone()) {
            int r = failed.getNow(-1);
            err.println("nexar: " + (label.isEmpty() ? "process" : label + " " + r) + " exited with code "
                    + processes.get(r).exitValue() + "; the others get " + REPORT_GRACE.toSeconds()
                    + "s to report and exit, then they are stopped");
            try {
                CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                        .get(REPORT_GRACE.toNanos(), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                stopAll();
            }
        }
        var codes = new int[n];
        for (int rank = 0; rank < n; rank++) {
            Process p = processes.get(rank);
            p.waitFor();
            codes[rank] = p.exitValue();
        }
        for (Thread t : pumps) {
            t.join(grace.toMillis());
        }
        hangReports.print(err, label.isEmpty() ? -1 : n);
        return codes;
    }

    /** Asks every live child to stop, then kills those still alive after the grace period. */
    void stopAll() throws InterruptedException {
        for (Process p : processes) {
            if (p.isAlive()) {
                p.destroy();
            }
        }
        long deadline = System.nanoTime() + grace.toNanos();
        for (Process p : processes) {
            long left = deadline - System.nanoTime();
            if (!p.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    /** Kills every child still alive. Idempotent. */
    @Override
    public void close() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
    }
}
