package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code nexar bench --in-process}: output format, CSV, checks against the reference, and argument errors. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BenchCommandTest {
    private static final String CHECK_LINE = "check: \\d+ passed, \\d+ failed";

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @TempDir
    Path dir;

    private int bench(String... args) {
        return benchWith(Map.of(), args);
    }

    private int benchWith(Map<String, String> env, String... args) {
        out.reset();
        err.reset();
        var context = new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env, Map.of());
        var all = new ArrayList<>(List.of("bench", "--in-process", "--iters", "3", "--warmup", "1"));
        all.addAll(List.of(args));
        return NexarCli.run(context, all.toArray(String[]::new));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private static List<String[]> rows(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        assertThat(lines.getFirst()).isEqualTo("op,size_bytes,count,type,redop,algorithm,time_us_median,time_us_min,"
                + "time_us_max,algbw_GBps,busbw_GBps,max_err,alloc_bytes_per_call,wire_bytes_per_call,"
                + "dense_wire_bytes_per_call,cpu_us_per_call");
        return lines.stream().skip(1).map(l -> l.split(",", -1)).toList();
    }

    @Test
    void shouldCheckAnIntegerAllreduceExactlyAndWriteOneCsvRowPerSize() throws IOException {
        Path csv = dir.resolve("i32.csv");
        int code = bench("--np", "3", "--op", "allreduce", "--dtype", "i32", "--min-bytes", "8", "--max-bytes",
                "64KiB", "--factor", "64", "--check", "--csv", csv.toString());
        assertThat(code).as(out() + err()).isZero();
        List<String[]> rows = rows(csv);
        // 8 B, 512 B, 32 KiB; three ranks, so each size stays a whole number of i32 elements.
        assertThat(rows).extracting(r -> r[1]).containsExactly("8", "512", "32768");
        // every call costs some CPU, but a row's few timed batches may fit in one tick of process CPU time: the rows
        // together do not
        assertThat(rows.stream().mapToDouble(r -> Double.parseDouble(r[15])).sum()).isPositive();
        for (String[] r : rows) {
            assertThat(r).hasSize(16);
            assertThat(Long.parseLong(r[12])).isNotNegative(); // the allocation column
            assertThat(Double.parseDouble(r[15])).isNotNegative(); // the CPU column: measured (10 ms ticks)
            assertThat(r[0]).isEqualTo("allreduce");
            assertThat(Long.parseLong(r[2])).isEqualTo(Long.parseLong(r[1]) / 4);
            assertThat(r[3]).isEqualTo("i32");
            assertThat(r[4]).isEqualTo("sum");
            assertThat(r[5]).isIn("recursive-doubling", "halving-doubling", "ring", "pipelined-ring");
            double median = Double.parseDouble(r[6]);
            assertThat(Double.parseDouble(r[7])).isLessThanOrEqualTo(median);
            assertThat(Double.parseDouble(r[8])).isGreaterThanOrEqualTo(median);
            assertThat(Double.parseDouble(r[10])).isCloseTo(Double.parseDouble(r[9]) * 4 / 3,
                    org.assertj.core.data.Offset.offset(1e-5));
            assertThat(r[11]).isEqualTo("0");
        }
        List<String> lines = out().lines().toList();
        assertThat(lines.getLast()).matches(CHECK_LINE).isEqualTo("check: 3 passed, 0 failed");
        assertThat(err()).contains("bench: [1/3] allreduce 8 B", "bench: [3/3] allreduce 32768 B");
    }

    @Test
    void shouldCheckAFloatAllreduceWithinTolerance() throws IOException {
        Path csv = dir.resolve("f32.csv");
        int code = bench("--np", "4", "--op", "allreduce", "--sizes", "8,4KiB,1MiB", "--redop", "avg", "--check",
                "--csv", csv.toString());
        assertThat(code).as(out() + err()).isZero();
        List<String[]> rows = rows(csv);
        assertThat(rows).hasSize(3);
        assertThat(rows).allSatisfy(r -> assertThat(Double.parseDouble(r[11])).isBetween(0.0, 1e-6));
        assertThat(rows.getLast()[5]).isEqualTo("ring");
        assertThat(out()).endsWith("check: 3 passed, 0 failed" + System.lineSeparator());
    }

    @Test
    void shouldWriteABarrierRowOfSizeZero() throws IOException {
        Path csv = dir.resolve("barrier.csv");
        assertThat(bench("--np", "2", "--op", "barrier", "--csv", csv.toString())).as(err()).isZero();
        List<String[]> rows = rows(csv);
        assertThat(rows).hasSize(1);
        assertThat(rows.getFirst()).containsExactly(rows.getFirst()[0], "0", "0", "", "", "dissemination",
                rows.getFirst()[6], rows.getFirst()[7], rows.getFirst()[8], "0.000000", "0.000000", "",
                rows.getFirst()[12], "", "", rows.getFirst()[15]);
        assertThat(rows.getFirst()[0]).isEqualTo("barrier");
        // measured (not -1), but possibly 0: process CPU time moves in 10 ms ticks, and three in-process barrier
        // batches can fit in one (seen in CI, 2026-12-06)
        assertThat(Double.parseDouble(rows.getFirst()[15])).isNotNegative();
        assertThat(out()).doesNotContain("check:");
    }

    /** Issue 14 item 5: {@code --jfr FILE} records the ranks' nexar events (one file with --in-process). */
    @Test
    void shouldRecordTheRanksCollectivesWithJfr() throws IOException {
        Path jfr = dir.resolve("bench.jfr");
        assertThat(bench("--np", "2", "--op", "allreduce", "--sizes", "8", "--jfr", jfr.toString())).as(err())
                .isZero();
        var collectives = jdk.jfr.consumer.RecordingFile.readAllEvents(jfr).stream()
                .filter(e -> e.getEventType().getName().equals("io.nexar.Collective"))
                .filter(e -> e.getString("operation").equals("allReduce")).toList();
        assertThat(collectives).as("every call, with no threshold").hasSizeGreaterThanOrEqualTo(2 * 3)
                .allSatisfy(e -> assertThat(e.getString("outcome")).isEqualTo("ok"));
        assertThat(collectives).extracting(e -> e.getInt("rank")).contains(0, 1);
    }

    @Test
    void shouldPassEveryCheckOfEveryOperation() {
        int code = bench("--np", "3", "--op", "all", "--sizes", "8,3KiB", "--check");
        assertThat(code).as(out() + err()).isZero();
        // allgather, reducescatter and alltoall round 8 B up to one element per rank: 12 B.
        assertThat(out()).contains("allgather", "reducescatter", "alltoall", "barrier", "sendrecv", "p2p",
                "binomial", "pairwise");
        assertThat(out().lines().toList().getLast()).isEqualTo("check: 15 passed, 0 failed");
    }

    @Test
    void shouldPassEveryCheckOfEveryOperationOnSparseTopologies() {
        // a ring of 5 (messages between non-neighbours relayed, up to 2 hops) and a hypercube of 4: the short form of
        // the recorded runs of docs/collectives.md 2c
        for (String topology : new String[] {"k-regular:2", "hypercube"}) {
            int np = topology.equals("hypercube") ? 4 : 5;
            int code = benchWith(Map.of("NEXAR_TOPOLOGY", topology), "--np", String.valueOf(np), "--op", "all",
                    "--sizes", "8,3KiB", "--check");
            assertThat(code).as(topology + ": " + out() + err()).isZero();
            assertThat(out()).contains(" on " + np + " ranks in this JVM (in-process transport) (topology=" + topology
                    + "); ");
            assertThat(out().lines().toList().getLast()).as(topology).isEqualTo("check: 15 passed, 0 failed");
        }
        // the setting reaches the ranks: a hypercube of 3 cannot form
        assertThat(benchWith(Map.of("NEXAR_TOPOLOGY", "hypercube"), "--np", "3", "--op", "barrier")).isEqualTo(1);
        assertThat(err()).contains("topology=hypercube needs a world size that is a power of two");
    }

    @Test
    void shouldCheckEveryTypeAndOperatorAgainstTheKernels() {
        for (DataType type : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                if (op.isBitwise() && type.isFloatingPoint()) {
                    continue;
                }
                int code = bench("--np", "3", "--op", "allreduce,reducescatter", "--sizes", "96", "--dtype",
                        BenchPlan.name(type), "--redop", BenchPlan.name(op), "--check");
                assertThat(code).as(type + " " + op + "\n" + out() + err()).isZero();
                assertThat(out()).as(type + " " + op).contains("check: 2 passed, 0 failed");
            }
        }
    }

    @Test
    void shouldNameTheForcedAlgorithm() throws IOException {
        Path csv = dir.resolve("ring.csv");
        assertThat(bench("--np", "2", "--op", "allreduce", "--sizes", "8,1KiB", "--algo", "ring", "--csv",
                csv.toString())).as(err()).isZero();
        assertThat(rows(csv)).extracting(r -> r[5]).containsExactly("ring", "ring");
    }

    @Test
    void shouldExitWithUsageCodeOnAnUnknownOperation() {
        assertThat(bench("--np", "2", "--op", "allsum")).isEqualTo(2);
        assertThat(err()).contains("nexar bench: unknown --op 'allsum': expected one of allreduce, broadcast, reduce,"
                + " allgather, reducescatter, alltoall, barrier, sendrecv, allreduce-compressed or all");
    }

    @Test
    void shouldExitWithUsageCodeOnABadSize() {
        assertThat(bench("--np", "2", "--op", "allreduce", "--max-bytes", "12XB")).isEqualTo(2);
        assertThat(err()).contains("nexar bench: --max-bytes \"12XB\": expected a size such as 8, 64KiB or 16MiB");
        assertThat(bench("--np", "2", "--op", "allreduce", "--sizes", "8,,1MiB")).isEqualTo(2);
        assertThat(err()).contains("--sizes \"\": expected a size");
        assertThat(bench("--np", "2", "--op", "allreduce", "--min-bytes", "1MiB", "--max-bytes", "8")).isEqualTo(2);
        assertThat(err()).contains("--max-bytes 8 is smaller than --min-bytes 1MiB");
    }

    @Test
    void shouldExitWithUsageCodeOnConflictingOrInvalidFlags() {
        assertThat(bench("--np", "2", "--op", "allreduce", "--sizes", "8", "--factor", "4")).isEqualTo(2);
        assertThat(err()).contains("--sizes replaces --min-bytes, --max-bytes and --factor");
        assertThat(bench("--np", "2", "--op", "barrier", "--algo", "ring")).isEqualTo(2);
        assertThat(err()).contains("--algo needs one --op among allreduce, broadcast, allgather");
        assertThat(bench("--np", "2", "--op", "allreduce", "--algo", "tree")).isEqualTo(2);
        assertThat(err()).contains("--algo 'tree' is not an algorithm of allreduce.algorithm: expected one of auto,");
        assertThat(bench("--np", "2", "--op", "allreduce", "--redop", "bxor")).isEqualTo(2);
        assertThat(err()).contains("--redop bxor applies to integer types only, not f32");
        assertThat(bench("--np", "2", "--op", "allreduce", "--bulk", "udp")).isEqualTo(2);
        assertThat(err()).contains("--bulk 'udp': expected one of quic, tls, tcp-plain");
        assertThat(bench("--np", "1", "--op", "allreduce")).isEqualTo(2);
        assertThat(err()).contains("--np must be at least 2, got 1");
        assertThat(bench("--np", "2", "--op", "allreduce", "--iters", "many")).isEqualTo(2);
        assertThat(bench("--np", "2", "--op", "allreduce", "--caller", "carrier")).isEqualTo(2);
        assertThat(err()).contains("--caller must be one of platform, virtual, got carrier");
    }

    @Test
    void shouldMeasureOnTheCallerThreadThePlanNames() {
        var plan = new BenchPlan(BenchPlan.parseOps("barrier"), List.of(), DataType.F32, ReduceOp.SUM, 1, 0, null,
                null, false, "batch", "native", null, "virtual");
        assertThat(BenchPlan.fromArgs(plan.toArgs(), new java.util.HashMap<>())).isEqualTo(plan);
        assertThat(BenchWorker.onCaller(plan, () -> Thread.currentThread().isVirtual())).isTrue();
        var platform = new BenchPlan(plan.ops(), plan.sizes(), plan.type(), plan.redop(), 1, 0, null, null, false,
                "batch", "native", null, null);
        assertThat(platform.caller()).isEqualTo("platform");
        assertThat(BenchWorker.onCaller(platform, () -> Thread.currentThread().isVirtual())).isFalse();
        var failure = new IllegalStateException("rank 1 failed");
        assertThatThrownBy(() -> BenchWorker.onCaller(plan, () -> {
            throw failure;
        })).isSameAs(failure);
        assertThat(bench("--np", "2", "--op", "barrier", "--caller", "virtual")).isZero();
        assertThat(out()).contains("# caller: virtual threads (every rank of --in-process runs on one)");
    }

    @Test
    void shouldCarryThePlanToWorkersAsArguments() {
        var plan = new BenchPlan(BenchPlan.parseOps("allreduce"), BenchPlan.parseSizes("8", "1KiB", 4, null),
                DataType.BF16, ReduceOp.MAX, 7, 2, "Ring", "tcp-plain", true, "iteration", "heap");
        assertThat(plan.sizes()).containsExactly(8L, 32L, 128L, 512L);
        assertThat(plan.algo()).isEqualTo("ring");
        var args = new ArrayList<>(plan.toArgs());
        args.add("result=/tmp/x.csv");
        var rest = new java.util.HashMap<String, String>();
        assertThat(BenchPlan.fromArgs(args, rest)).isEqualTo(plan);
        assertThat(rest).containsExactly(Map.entry("result", "/tmp/x.csv"));
        assertThat(plan.bytesFor(BenchOp.ALLGATHER, 3)).containsExactly(6L, 30L, 126L, 510L);
        assertThat(plan.bytesFor(BenchOp.BARRIER, 3)).containsExactly(0L);
    }

    @Test
    void shouldFormatTheCheckLineAndRoundTripCsvRows() {
        assertThat(BenchTable.checkLine(7, 1)).isEqualTo("check: 7 passed, 1 failed").matches(CHECK_LINE);
        var row = new BenchResult("allreduce", 1024, 256, "f32", "sum", "ring", 12.5, 10, 20, 0.08192, 0.12288,
                Double.POSITIVE_INFINITY, 96);
        assertThat(BenchResult.fromCsv(row.toCsv()).maxErr()).isInfinite();
        assertThat(BenchResult.fromCsv(row.toCsv()).passed()).isFalse();
        assertThat(BenchResult.fromCsv(row.toCsv()).allocBytesPerCall()).isEqualTo(96);
        var unchecked = new BenchResult("barrier", 0, 0, "", "", "dissemination", 1, 1, 1, 0, 0, Double.NaN,
                BenchResult.UNMEASURED);
        assertThat(unchecked.toCsv()).isEqualTo("barrier,0,0,,,dissemination,1.000,1.000,1.000,0.000000,0.000000,,,,,");
        assertThat(BenchResult.fromCsv("barrier,0,0,,,dissemination,1.000,1.000,1.000,0.000000,0.000000,"))
                .isEqualTo(unchecked);
        assertThat(BenchResult.fromCsv(unchecked.toCsv())).isEqualTo(unchecked);
        var compressed = new BenchResult("allreduce-compressed", 4096, 1024, "f32", "sum", "topk-allgather", 1, 1, 1,
                0, 0, 0, 10, 246, 6144);
        assertThat(BenchResult.fromCsv(compressed.toCsv())).isEqualTo(compressed);
        var withCpu = new BenchResult("allreduce", 8, 2, "f32", "sum", "recursive-doubling", 30, 25, 40, 0, 0,
                Double.NaN, 900, BenchResult.UNMEASURED, BenchResult.UNMEASURED, 118.5);
        assertThat(withCpu.toCsv()).endsWith(",900,,,118.5");
        assertThat(BenchResult.fromCsv(withCpu.toCsv())).isEqualTo(withCpu);
        assertThat(BenchTable.wireLine(compressed)).isEqualTo("# wire: allreduce-compressed 4096 B: 246 B per rank"
                + " per call, dense allreduce 6144 B (4.00%)");
    }

    @Test
    void shouldCheckCompressedAllreduceAndReportItsBytesOnTheWire() throws IOException {
        Path csv = dir.resolve("compressed.csv");
        int code = bench("--np", "4", "--op", "allreduce-compressed", "--sizes", "4KiB,1MiB", "--check", "--csv",
                csv.toString());
        assertThat(code).as(err()).isZero();
        assertThat(out()).contains("# wire: allreduce-compressed 4096 B: 276 B per rank per call, dense allreduce")
                .contains("check: 2 passed, 0 failed");
        var rows = BenchTable.readCsv(csv);
        assertThat(rows).hasSize(2).allSatisfy(r -> assertThat(r.passed()).isTrue());
        // 1% of 262144 f32 elements: k 2622, payload 4 + 2622 x 8 bytes, sent to 3 ranks (allgather)
        assertThat(rows.get(1).wireBytesPerCall()).isEqualTo(3 * (4 + 2622 * 8L));
        assertThat(rows.get(1).denseWireBytesPerCall()).isEqualTo(2 * 3 * (1L << 20) / 4);
        assertThat(bench("--np", "2", "--op", "allreduce-compressed", "--dtype", "i32")).isEqualTo(2);
        assertThat(bench("--np", "2", "--op", "allreduce-compressed", "--compressor", "topk:x")).isEqualTo(2);
        assertThat(err()).contains("--compressor 'topk:x'");
    }
}
