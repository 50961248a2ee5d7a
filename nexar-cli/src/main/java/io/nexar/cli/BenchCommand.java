package io.nexar.cli;

import io.nexar.NexarConfig;
import io.nexar.internal.collective.AlgorithmSelector;
import io.nexar.testkit.LocalCluster;
import io.nexar.testkit.RankFailedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nexar bench}: measures collectives and point-to-point transfers over a range of sizes, in the manner of
 * nccl-tests, on N worker JVMs started on loopback ({@link LaunchCommand#run}, one {@link BenchWorker} per rank) or,
 * with {@code --in-process}, on N ranks in this JVM over the in-process transport. Prints a table, optionally a CSV
 * file, and with {@code --check} the line {@code check: P passed, F failed}. Exit codes: 0 done (every check passed),
 * 1 a check or a rank failed, 2 a bad argument, 3 a bad configuration value.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure collectives over a range of sizes on N processes (nccl-tests style).",
            "",
            "Timing: buffers are allocated once and reused; each timed call is preceded by a barrier; an iteration's"
                    + " time is the slowest rank's (allreduce MAX of per-rank times), and each row reports the median,"
                    + " min and max over iterations. (nccl-tests averages over back-to-back calls instead.)",
            "Bandwidth, in GB/s (1e9 B/s) as nccl-tests: algbw = size / median time; busbw = algbw * factor,"
                    + " factor 2(n-1)/n for allreduce, (n-1)/n for allgather, reducescatter and alltoall, 1 for"
                    + " broadcast, reduce and sendrecv. size is the whole buffer: allgather's output, reducescatter's"
                    + " and alltoall's input.",
            "max_err (--check): largest |got - want| / max(1, |want|) over elements and ranks; 0 required for"
                    + " integer types, at most 1e-6 for f32, 1e-12 for f64, 1e-2 for f16 and bf16.",
            "See docs/benchmarks.md for the method and how to compare with Open MPI.",
            ""})
final class BenchCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    LogOptions logOptions;

    @Option(names = {"-n", "--np"}, required = true, description = "number of ranks, at least 2")
    int ranks;

    @Option(names = "--op", required = true, paramLabel = "OP",
            description = "allreduce, broadcast, reduce, allgather, reducescatter, alltoall, barrier, sendrecv,"
                    + " allreduce-compressed (not in all) or all")
    String op;

    @Option(names = "--compressor", paramLabel = "SPEC",
            description = "compressor of --op allreduce-compressed: topk:RATIO (default topk:0.01, 1%% of the"
                    + " elements), topk:K or randomk:K; its rows also report the bytes each rank sends against a"
                    + " dense allreduce")
    String compressor;

    @Option(names = "--min-bytes", paramLabel = "SIZE", description = "smallest size (default 8)")
    String minBytes;

    @Option(names = "--max-bytes", paramLabel = "SIZE", description = "largest size (default 64MiB)")
    String maxBytes;

    @Option(names = "--factor", paramLabel = "F", description = "multiply the size by F between rows (default 2)")
    Integer factor;

    @Option(names = "--sizes", paramLabel = "LIST",
            description = "comma-separated sizes, for example 8,64KiB,1MiB (instead of --min/--max-bytes/--factor)")
    String sizes;

    @Option(names = "--dtype", defaultValue = "f32",
            description = "f16, bf16, f32, f64, i8, u8, i32, u32, i64 or u64 (default ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = "--redop", defaultValue = "sum",
            description = "sum, prod, min, max, avg, band, bor or bxor (default ${DEFAULT-VALUE})")
    String redop;

    @Option(names = "--iters", defaultValue = "20",
            description = "timed iterations per size (default ${DEFAULT-VALUE})")
    int iters;

    @Option(names = "--warmup", defaultValue = "5",
            description = "untimed iterations per size before them (default ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--algo", paramLabel = "NAME",
            description = "force the algorithm of a single --op allreduce, broadcast or allgather (as the"
                    + " *.algorithm settings: ring, recursive-doubling, halving-doubling, pipelined-ring, rank-order,"
                    + " binomial, scatter-allgather, pipelined-chain)")
    String algo;

    @Option(names = "--bulk", paramLabel = "MODE",
            description = "bulk lane of the network transport: quic, tls or tcp-plain; passed to the workers as the"
                    + " system property nexar.bulk (ignored with --in-process)")
    String bulk;

    @Option(names = "--check",
            description = "compare every result with a reference; ends with 'check: P passed, F failed'")
    boolean check;

    @Option(names = "--timing", defaultValue = "batch", paramLabel = "METHOD",
            description = "batch (default: each sample is k back-to-back calls after a barrier, k so a sample lasts"
                    + " about 5 ms, time per call = sample / k; as nccl-tests and Open MPI's benchmarks) or iteration"
                    + " (each sample is one call after a barrier, including the skew with which ranks leave it)")
    String timing;

    @Option(names = "--memory", defaultValue = "native", paramLabel = "KIND",
            description = "where the buffers live: native (default: off-heap, an arena's) or heap (Java arrays of"
                    + " the element type, float[] for f32, as most applications pass them)")
    String memory;

    @Option(names = "--caller", defaultValue = BenchPlan.DEFAULT_CALLER, paramLabel = "THREAD",
            description = "the thread that calls the operations in each worker: platform (default: its main thread)"
                    + " or virtual (a virtual thread; measures what calling from virtual threads costs; ignored with"
                    + " --in-process, whose ranks are virtual threads)")
    String caller;

    @Option(names = "--jfr", paramLabel = "FILE",
            description = "record JDK Flight Recorder events (nexar's: collectives, point-to-point, peer failures,"
                    + " membership, connections; and the JDK's defaults) into FILE, one file per rank (FILE-rankR.jfr; with --in-process one FILE);"
                    + " open them in JDK Mission Control or with: jfr print --categories nexar FILE")
    String jfr;

    @Option(names = "--csv", paramLabel = "FILE", description = "also write the rows to FILE as CSV")
    Path csv;

    @Option(names = "--in-process", description = "run the ranks in this JVM over the in-process transport")
    boolean inProcess;

    BenchCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        BenchPlan plan;
        try {
            plan = plan();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        LaunchCommand.checkConfiguration(context);
        var out = context.out();
        var topology = NexarConfig.builder().environment(context.env()).systemProperties(context.systemProperties())
                .build().topology();
        out.printf("# nexar bench: %s on %d ranks %s%s; %s %s; %d timed iterations after %d warm-up%n",
                plan.ops().stream().map(BenchOp::cliName).collect(Collectors.joining(",")), ranks,
                inProcess ? "in this JVM (in-process transport)" : "in worker JVMs on loopback",
                topology.kind() == io.nexar.Topology.Kind.FULL_MESH ? "" : " (topology=" + topology + ")",
                BenchPlan.name(plan.type()), BenchPlan.name(plan.redop()), plan.iters(), plan.warmup());
        out.println(plan.timing().equals("batch")
                ? "# time: per call, slowest rank's mean over a batch of back-to-back calls (barrier before each"
                        + " batch), median/min/max over batches"
                : "# time: slowest rank per iteration (barrier before each), median/min/max over iterations");
        if (bulk != null && inProcess) {
            context.err().println("nexar bench: --bulk has no effect with --in-process");
        }
        if (plan.caller().equals("virtual")) {
            out.println(inProcess ? "# caller: virtual threads (every rank of --in-process runs on one)"
                    : "# caller: a virtual thread in each worker");
        }
        List<BenchResult> rows = new ArrayList<>();
        String failure = inProcess ? runInProcess(plan, rows) : runLaunched(plan, rows);
        int failed = BenchTable.print(out, rows, plan.check());
        if (csv != null) {
            BenchTable.writeCsv(csv, rows);
        }
        if (failure != null) {
            context.err().println("nexar bench: " + failure);
            return ExitCodes.FAILED;
        }
        return failed > 0 ? ExitCodes.FAILED : ExitCodes.OK;
    }

    private BenchPlan plan() {
        if (ranks < 2) {
            throw new IllegalArgumentException("--np must be at least 2, got " + ranks);
        }
        if (sizes != null && (minBytes != null || maxBytes != null || factor != null)) {
            throw new IllegalArgumentException("--sizes replaces --min-bytes, --max-bytes and --factor: give one or"
                    + " the other");
        }
        return new BenchPlan(BenchPlan.parseOps(op),
                BenchPlan.parseSizes(minBytes == null ? "8" : minBytes, maxBytes == null ? "64MiB" : maxBytes,
                        factor, sizes),
                BenchPlan.parseType(dtype), BenchPlan.parseRedop(redop), iters, warmup, algo, bulk, check,
                timing, memory, compressor, caller);
    }

    /** Runs the ranks on virtual threads of this JVM; returns null, or what failed. */
    private String runInProcess(BenchPlan plan, List<BenchResult> rows) {
        var builder = NexarConfig.builder().environment(context.env()).systemProperties(context.systemProperties());
        if (plan.algo() != null) {
            builder.set(plan.ops().getFirst().algorithmKey(), plan.algo());
        }
        NexarConfig config = builder.build();
        var selector = new AlgorithmSelector(config);
        var runners = new BenchRunner[ranks];
        List<BenchResult> measured = Collections.synchronizedList(rows);
        // the ranks share this JVM's standard error: their hang reports are grouped at the end, as nexar launch does
        var hangs = new HangReportSummary();
        CliLogProvider.tap(hangs::addLogLine);
        try (var recording = BenchRecording.start(jfr == null ? null : Path.of(jfr));
             var cluster = LocalCluster.start(ranks, config, Duration.ofHours(1))) {
            cluster.onEachRank(c -> {
                var runner = new BenchRunner(c, plan, selector, context.err(),
                        context.systemProperties().get(BenchRunner.ABSENT_PROPERTY));
                runners[c.rank()] = runner;
                return runner.run(measured::add);
            });
            return null;
        } catch (RankFailedException e) {
            var sb = new StringBuilder("rank ").append(e.rank()).append(" failed");
            for (int r = 0; r < ranks; r++) {
                sb.append(System.lineSeparator()).append("  rank ").append(r).append(" during ")
                        .append(runners[r] == null ? "start-up" : runners[r].phase());
            }
            sb.append(System.lineSeparator()).append("  rank ").append(e.rank()).append(": ").append(e.getCause());
            for (Throwable s : e.getSuppressed()) {
                sb.append(System.lineSeparator()).append("  ").append(s.getMessage());
            }
            return sb.toString();
        } catch (java.io.IOException e) {
            return "cannot record to " + jfr + ": " + e.getMessage();
        } finally {
            CliLogProvider.tap(null);
            hangs.print(context.err(), ranks);
        }
    }

    /** Runs one worker JVM per rank; returns null, or what failed. */
    private String runLaunched(BenchPlan plan, List<BenchResult> rows) throws Exception {
        Path result = Files.createTempFile("nexar-bench-", ".csv");
        try {
            var args = new ArrayList<>(plan.toArgs());
            args.add("result=" + result);
            if (jfr != null) {
                args.add("jfr=" + Path.of(jfr).toAbsolutePath());
            }
            int code = LaunchCommand.run(context, ranks, "127.0.0.1", Duration.ofHours(2),
                    new UserProgram("", BenchWorker.class.getName(), args));
            rows.addAll(BenchTable.readCsv(result));
            return code == ExitCodes.OK ? null : "a worker failed after " + rows.size()
                    + " rows (its error and every other rank's state are above, prefixed [rank R])";
        } finally {
            Files.deleteIfExists(result);
        }
    }
}
