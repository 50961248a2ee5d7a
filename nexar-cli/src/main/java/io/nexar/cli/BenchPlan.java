package io.nexar.cli;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import io.nexar.internal.config.Units;
import io.nexar.internal.config.ValueFormatException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What one {@code nexar bench} run measures: validated, and passed to each worker JVM as {@code key=value} program
 * arguments ({@link #toArgs()}, {@link #fromArgs}).
 *
 * @param ops the operations, in order
 * @param sizes requested sizes in bytes, ascending; each operation rounds them to whole blocks ({@link #bytesFor})
 * @param type element type
 * @param redop reduce operator of the reducing operations
 * @param iters timed iterations per size, at least 1
 * @param warmup untimed iterations per size before them
 * @param algo forced algorithm (a choice of the operation's {@code *.algorithm} key), or null for auto
 * @param bulk bulk-lane mode passed to the transport as {@code nexar.bulk} ({@code quic}, {@code tls},
 *             {@code tcp-plain}), or null for its default
 * @param check whether results are compared with a reference
 * @param timing {@code batch} (each sample is {@code k} back-to-back calls after a barrier, k chosen so a sample
 *               lasts about 5 ms; what nccl-tests and Open MPI's benchmarks do) or {@code iteration} (each sample is
 *               one call after a barrier)
 * @param memory where the buffers live: {@code native} (off-heap, an arena's) or {@code heap} (Java arrays of the
 *               element type, float[] for f32, as most applications pass them)
 * @param compressor the compressor of {@code allreduce-compressed}, as {@code --compressor} gives it:
 *                   {@code topk:0.01} (a ratio), {@code topk:100} (a count) or {@code randomk:100}
 * @param caller the thread that calls the operations in each worker JVM: {@code platform} (its main thread) or
 *               {@code virtual} (a virtual thread it starts and joins: what calling from virtual threads costs)
 */
record BenchPlan(List<BenchOp> ops, List<Long> sizes, DataType type, ReduceOp redop, int iters, int warmup,
                 String algo, String bulk, boolean check, String timing, String memory, String compressor,
                 String caller) {

    /** The compressor when {@code --compressor} is not given: top-k sending 1% of the elements. */
    static final String DEFAULT_COMPRESSOR = "topk:0.01";

    /** A plan with the default compressor, called from each worker's main (platform) thread. */
    BenchPlan(List<BenchOp> ops, List<Long> sizes, DataType type, ReduceOp redop, int iters, int warmup,
              String algo, String bulk, boolean check, String timing, String memory) {
        this(ops, sizes, type, redop, iters, warmup, algo, bulk, check, timing, memory, DEFAULT_COMPRESSOR,
                DEFAULT_CALLER);
    }

    /** The calling thread when {@code --caller} is not given: each worker's main thread. */
    static final String DEFAULT_CALLER = "platform";

    /** The calling threads {@code --caller} accepts. */
    static final List<String> CALLERS = List.of("platform", "virtual");

    /**
     * The compressor of {@code spec}: {@code topk:R} with a ratio R in (0, 1] (written with a point, as 0.01),
     * {@code topk:K} or {@code randomk:K} with a count K (random-k's seed is 1 on every rank).
     *
     * @throws IllegalArgumentException naming {@code --compressor}
     */
    static io.nexar.Compressor parseCompressor(String spec) {
        String s = spec.strip().toLowerCase(Locale.ROOT);
        int colon = s.indexOf(':');
        try {
            if (colon > 0) {
                String kind = s.substring(0, colon);
                String arg = s.substring(colon + 1);
                if (kind.equals("topk")) {
                    return arg.contains(".") ? io.nexar.Compressor.TopK.ratio(Double.parseDouble(arg))
                            : io.nexar.Compressor.TopK.count(Long.parseLong(arg));
                }
                if (kind.equals("randomk")) {
                    return new io.nexar.Compressor.RandomK(Long.parseLong(arg), 1);
                }
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--compressor '" + spec + "': " + e.getMessage());
        }
        throw new IllegalArgumentException("--compressor '" + spec + "': expected topk:RATIO (such as topk:0.01),"
                + " topk:K or randomk:K");
    }

    /** The timing methods {@code --timing} accepts. */
    static final List<String> TIMINGS = List.of("batch", "iteration");

    /** The buffer kinds {@code --memory} accepts. */
    static final List<String> MEMORIES = List.of("native", "heap");

    /** The bulk-lane modes {@code --bulk} accepts. */
    static final List<String> BULK_MODES = List.of("quic", "tls", "tcp-plain");

    /** Validates every field; messages name the flag. */
    BenchPlan {
        ops = List.copyOf(ops);
        sizes = List.copyOf(sizes);
        if (ops.isEmpty()) {
            throw new IllegalArgumentException("--op: no operation given");
        }
        if (sizes.isEmpty() && !ops.stream().allMatch(o -> o == BenchOp.BARRIER)) {
            throw new IllegalArgumentException("--sizes: no size given");
        }
        if (iters < 1) {
            throw new IllegalArgumentException("--iters must be at least 1, got " + iters);
        }
        if (!TIMINGS.contains(timing)) {
            throw new IllegalArgumentException("--timing must be one of " + String.join(", ", TIMINGS) + ", got "
                    + timing);
        }
        if (!MEMORIES.contains(memory)) {
            throw new IllegalArgumentException("--memory must be one of " + String.join(", ", MEMORIES) + ", got "
                    + memory);
        }
        if (caller == null) {
            caller = DEFAULT_CALLER;
        }
        if (!CALLERS.contains(caller)) {
            throw new IllegalArgumentException("--caller must be one of " + String.join(", ", CALLERS) + ", got "
                    + caller);
        }
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must be at least 0, got " + warmup);
        }
        if (redop.isBitwise() && type.isFloatingPoint() && ops.stream().anyMatch(BenchOp::reduces)) {
            throw new IllegalArgumentException("--redop " + name(redop) + " applies to integer types only, not "
                    + name(type));
        }
        if (compressor == null) {
            compressor = DEFAULT_COMPRESSOR;
        }
        parseCompressor(compressor);
        if (ops.contains(BenchOp.ALLREDUCE_COMPRESSED) && (!type.isFloatingPoint()
                || redop != ReduceOp.SUM && redop != ReduceOp.AVG)) {
            throw new IllegalArgumentException("--op allreduce-compressed needs --dtype f16, bf16, f32 or f64 and"
                    + " --redop sum or avg, got " + name(type) + " and " + name(redop));
        }
        if (algo != null) {
            if (ops.size() != 1 || ops.getFirst().algorithmKey() == null) {
                throw new IllegalArgumentException("--algo needs one --op among allreduce, broadcast, allgather (the"
                        + " others have a single algorithm), got --op " + ops.stream().map(BenchOp::cliName)
                        .collect(Collectors.joining(",")));
            }
            var key = ops.getFirst().algorithmKey();
            String given = algo.strip();
            algo = key.choices().stream().filter(c -> c.equalsIgnoreCase(given)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException("--algo '" + given + "' is not an algorithm of " + key.key()
                            + ": expected one of " + String.join(", ", key.choices())));
        }
        if (bulk != null && !BULK_MODES.contains(bulk)) {
            throw new IllegalArgumentException("--bulk '" + bulk + "': expected one of " + String.join(", ",
                    BULK_MODES));
        }
    }

    /** Parses {@code --op}: one name or {@code all}. */
    static List<BenchOp> parseOps(String text) {
        if (text.strip().equalsIgnoreCase("all")) {
            // allreduce-compressed is left out: it applies to floating-point sum and avg only
            return java.util.Arrays.stream(BenchOp.values()).filter(o -> o != BenchOp.ALLREDUCE_COMPRESSED).toList();
        }
        var ops = new ArrayList<BenchOp>();
        for (String part : text.split(",")) {
            ops.add(BenchOp.parse(part));
        }
        return ops;
    }

    /**
     * The sizes from {@code --min-bytes}, {@code --max-bytes} and {@code --factor} (a geometric series, as
     * nccl-tests' {@code -b -e -f}), or from {@code --sizes} when given (then the others must be left alone).
     */
    static List<Long> parseSizes(String min, String max, Integer factor, String list) {
        var sizes = new TreeSet<Long>();
        if (list != null) {
            if (list.isBlank()) {
                return List.of();
            }
            for (String part : list.split(",")) {
                sizes.add(size("--sizes", part));
            }
            return List.copyOf(sizes);
        }
        long lo = size("--min-bytes", min);
        long hi = size("--max-bytes", max);
        int f = factor == null ? 2 : factor;
        if (lo < 1) {
            throw new IllegalArgumentException("--min-bytes must be at least 1 byte, got " + min);
        }
        if (hi < lo) {
            throw new IllegalArgumentException("--max-bytes " + max + " is smaller than --min-bytes " + min);
        }
        if (f < 2) {
            throw new IllegalArgumentException("--factor must be at least 2, got " + f);
        }
        for (long s = lo; s <= hi; s = s > hi / f ? hi + 1 : s * f) {
            sizes.add(s);
        }
        return List.copyOf(sizes);
    }

    private static long size(String flag, String text) {
        try {
            long bytes = Units.parseSize(text);
            if (bytes > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(flag + " " + text + " is above the 2GiB a bench buffer can hold");
            }
            return bytes;
        } catch (ValueFormatException e) {
            throw new IllegalArgumentException(flag + " \"" + text.strip() + "\": expected a size such as 8, 64KiB"
                    + " or 16MiB");
        }
    }

    /** Parses {@code --dtype}, for example {@code f32} or {@code bf16}. */
    static DataType parseType(String text) {
        for (DataType t : DataType.values()) {
            if (name(t).equalsIgnoreCase(text.strip())) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown --dtype '" + text + "': expected one of "
                + java.util.Arrays.stream(DataType.values()).map(BenchPlan::name).collect(Collectors.joining(", ")));
    }

    /** Parses {@code --redop}, for example {@code sum}. */
    static ReduceOp parseRedop(String text) {
        for (ReduceOp op : ReduceOp.values()) {
            if (name(op).equalsIgnoreCase(text.strip())) {
                return op;
            }
        }
        throw new IllegalArgumentException("unknown --redop '" + text + "': expected one of "
                + java.util.Arrays.stream(ReduceOp.values()).map(BenchPlan::name).collect(Collectors.joining(", ")));
    }

    /** The lower-case name of a type or operator as printed, for example {@code f32} or {@code sum}. */
    static String name(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    /**
     * The sizes {@code op} runs on {@code worldSize} ranks: each requested size rounded down to whole blocks of
     * whole elements (at least one element per block), without repeats; {@code [0]} for barrier.
     */
    List<Long> bytesFor(BenchOp op, int worldSize) {
        int blocks = op.blocks(worldSize);
        if (blocks == 0) {
            return List.of(0L);
        }
        long unit = (long) blocks * type.byteSize();
        var out = new TreeSet<Long>();
        for (long s : sizes) {
            out.add(Math.max(1, s / unit) * unit);
        }
        return List.copyOf(out);
    }

    /** The largest buffer any operation needs on {@code worldSize} ranks, in bytes. */
    long maxBytes(int worldSize) {
        long max = type.byteSize();
        for (BenchOp op : ops) {
            for (long s : bytesFor(op, worldSize)) {
                max = Math.max(max, s);
            }
        }
        return max;
    }

    /** The program arguments that carry this plan to a worker, for example {@code op=allreduce}. */
    List<String> toArgs() {
        var args = new ArrayList<String>();
        args.add("op=" + ops.stream().map(BenchOp::cliName).collect(Collectors.joining(",")));
        args.add("sizes=" + sizes.stream().map(String::valueOf).collect(Collectors.joining(",")));
        args.add("dtype=" + name(type));
        args.add("redop=" + name(redop));
        args.add("iters=" + iters);
        args.add("warmup=" + warmup);
        if (algo != null) {
            args.add("algo=" + algo);
        }
        if (bulk != null) {
            args.add("bulk=" + bulk);
        }
        args.add("check=" + check);
        args.add("timing=" + timing);
        args.add("memory=" + memory);
        args.add("compressor=" + compressor);
        args.add("caller=" + caller);
        return args;
    }

    /**
     * Reads a plan from {@link #toArgs()} arguments; arguments with other keys are returned in {@code rest}.
     *
     * @throws IllegalArgumentException if an argument is malformed
     */
    static BenchPlan fromArgs(List<String> args, Map<String, String> rest) {
        var map = new LinkedHashMap<String, String>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("bench argument '" + a + "' is not key=value");
            }
            map.put(a.substring(0, eq), a.substring(eq + 1));
        }
        var plan = new BenchPlan(parseOps(map.remove("op")), parseSizes(null, null, null, map.remove("sizes")),
                parseType(map.remove("dtype")), parseRedop(map.remove("redop")),
                Integer.parseInt(map.remove("iters")), Integer.parseInt(map.remove("warmup")), map.remove("algo"),
                map.remove("bulk"), Boolean.parseBoolean(map.remove("check")), map.remove("timing"),
                map.remove("memory"), map.remove("compressor"), map.remove("caller"));
        rest.putAll(map);
        return plan;
    }
}
