package io.nexar.cli;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.NexarConfig;
import io.nexar.internal.collective.AlgorithmSelector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * One rank of {@code nexar bench}: joins the cluster with {@link Nexar#join()} and runs the measurement
 * ({@link BenchRunner}). Arguments are {@code key=value} pairs ({@link BenchPlan#toArgs()}), plus
 * {@code result=FILE}, to which rank 0 appends one CSV line per measured row for the launching command to print.
 * Without {@code result=}, rank 0 prints the table itself, so the worker also runs under {@code nexar launch}:
 *
 * <pre>
 * nexar launch -n 4 io.nexar.cli.BenchWorker op=allreduce sizes=8,1048576 dtype=f32 redop=sum iters=20 warmup=5 \
 *     check=true
 * </pre>
 *
 * <p>{@code jfr=FILE} records JDK Flight Recorder events into {@code FILE-rankR.jfr} ({@link BenchRecording}).
 *
 * <p>{@code algo=} is applied as the system property of the operation's {@code *.algorithm} key, and {@code bulk=}
 * as {@code nexar.bulk}, before joining. Exit codes: 0 done (and, when printing the table, every check passed), 1 a
 * failure (its message, with what this rank was doing, goes to stderr), 2 bad arguments. When the launcher stops
 * this rank because another one failed, a shutdown hook prints what this rank was doing.
 */
public final class BenchWorker {
    private BenchWorker() {
    }

    /**
     * Runs one rank.
     *
     * @param args {@code key=value} pairs, see the class comment
     */
    public static void main(String[] args) {
        var rest = new HashMap<String, String>();
        BenchPlan plan;
        try {
            plan = BenchPlan.fromArgs(List.of(args), rest);
        } catch (RuntimeException e) {
            System.err.println("nexar bench worker: " + e.getMessage());
            System.exit(ExitCodes.USAGE);
            return;
        }
        if (plan.algo() != null) {
            System.setProperty(plan.ops().getFirst().algorithmKey().systemProperty(), plan.algo());
        }
        if (plan.bulk() != null) {
            System.setProperty("nexar.bulk", plan.bulk());
        }
        Path result = rest.containsKey("result") ? Path.of(rest.get("result")) : null;
        var runner = new AtomicReference<BenchRunner>();
        Thread hook = Thread.ofPlatform().unstarted(() -> System.err.println("nexar bench: stopped during "
                + phase(runner.get())));
        Runtime.getRuntime().addShutdownHook(hook);
        String jfr = rest.get("jfr");
        int launchRank = Integer.parseInt(System.getenv().getOrDefault("NEXAR_RANK", "0"));
        try (var recording = BenchRecording.start(jfr == null ? null : BenchRecording.forRank(jfr, launchRank));
             Communicator world = Nexar.join()) {
            runner.set(new BenchRunner(world, plan, new AlgorithmSelector(NexarConfig.fromEnvironment()),
                    System.err, System.getProperty(BenchRunner.ABSENT_PROPERTY)));
            List<BenchResult> rows = onCaller(plan, () -> runner.get().run(r -> append(result, r)));
            unhook(hook);
            if (world.rank() == 0 && result == null && BenchTable.print(System.out, rows, plan.check()) > 0) {
                System.exit(ExitCodes.FAILED);
            }
        } catch (RuntimeException | java.io.IOException e) {
            unhook(hook);
            System.err.println("nexar bench: failed during " + phase(runner.get()) + ": " + e);
            System.exit(ExitCodes.FAILED);
        }
    }

    /**
     * Runs {@code measure} on the thread {@code plan.caller()} names: this one, or a virtual thread started for it
     * and joined (its failure rethrown here as it was).
     */
    static <T> T onCaller(BenchPlan plan, Supplier<T> measure) {
        if (!plan.caller().equals("virtual")) {
            return measure.get();
        }
        try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            return executor.submit(measure::get).get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while its virtual caller measured", e);
        }
    }

    private static String phase(BenchRunner runner) {
        return runner == null ? "joining the cluster" : runner.phase();
    }

    private static void unhook(Thread hook) {
        try {
            if (hook != null) {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
        } catch (IllegalStateException e) {
            // Shutting down already: the hook runs and says what this rank was doing.
        }
    }

    private static void append(Path file, BenchResult r) {
        if (file == null) {
            return;
        }
        try {
            Files.writeString(file, r.toCsv() + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the result file " + file, e);
        }
    }
}
