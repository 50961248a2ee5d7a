package io.nexar.cli;

import java.util.Locale;

/**
 * One measured row of {@code nexar bench}: one operation at one size. Times are the per-iteration maximum over ranks
 * (each iteration starts after a barrier), summarised over the iterations.
 *
 * @param op the operation's name, for example {@code allreduce}
 * @param sizeBytes nccl-tests' size S ({@link BenchOp}); 0 for barrier
 * @param count elements in S ({@code S / element size}); 0 for barrier
 * @param type element type name ({@code f32}), empty for barrier
 * @param redop reduce operator name ({@code sum}), empty for operations that do not reduce
 * @param algorithm the algorithm the collective engine selected (or the one forced with {@code --algo})
 * @param medianUs median time of one call, in microseconds
 * @param minUs fastest call, in microseconds
 * @param maxUs slowest call, in microseconds
 * @param algbwGBps {@code S / median time}, in GB/s (10^9 bytes per second)
 * @param busbwGBps {@code algbw} times the operation's bus factor, in GB/s
 * @param maxErr the largest error of any element on any rank ({@link BenchData#error}), or NaN if not checked
 * @param allocBytesPerCall heap bytes allocated per call by the busiest rank's JVM, or {@link #UNMEASURED}
 * @param wireBytesPerCall payload bytes the busiest rank sends per call (frame headers not counted), or
 *                         {@link #UNMEASURED}; reported for {@code allreduce-compressed}
 * @param denseWireBytesPerCall what a dense allreduce of the same size sends per rank per call with the algorithm the
 *                              engine selects for it, or {@link #UNMEASURED}; reported for {@code allreduce-compressed}
 * @param cpuUsPerCall CPU time per call of all ranks' JVMs together (every thread: callers, lane readers and writers,
 *                     the QUIC event loops, the JIT and the collector), in microseconds, over the timed calls; or
 *                     {@link #UNMEASURED} (-1) when not measured; what the JVM's TLS floor study reports as
 *                     {@code cpu_ms_per_op}
 */
record BenchResult(String op, long sizeBytes, long count, String type, String redop, String algorithm,
                   double medianUs, double minUs, double maxUs, double algbwGBps, double busbwGBps, double maxErr,
                   long allocBytesPerCall, long wireBytesPerCall, long denseWireBytesPerCall, double cpuUsPerCall) {

    /** A row without a CPU figure. */
    BenchResult(String op, long sizeBytes, long count, String type, String redop, String algorithm,
                double medianUs, double minUs, double maxUs, double algbwGBps, double busbwGBps, double maxErr,
                long allocBytesPerCall, long wireBytesPerCall, long denseWireBytesPerCall) {
        this(op, sizeBytes, count, type, redop, algorithm, medianUs, minUs, maxUs, algbwGBps, busbwGBps, maxErr,
                allocBytesPerCall, wireBytesPerCall, denseWireBytesPerCall, UNMEASURED);
    }

    /** A row without wire bytes and CPU figure. */
    BenchResult(String op, long sizeBytes, long count, String type, String redop, String algorithm,
                double medianUs, double minUs, double maxUs, double algbwGBps, double busbwGBps, double maxErr,
                long allocBytesPerCall) {
        this(op, sizeBytes, count, type, redop, algorithm, medianUs, minUs, maxUs, algbwGBps, busbwGBps, maxErr,
                allocBytesPerCall, UNMEASURED, UNMEASURED);
    }

    /** {@link #allocBytesPerCall} when it was not measured (the JVM cannot count allocations, or an older file). */
    static final long UNMEASURED = -1;

    /** The CSV header, exactly as {@code --csv} writes it. */
    static final String CSV_HEADER = "op,size_bytes,count,type,redop,algorithm,time_us_median,time_us_min,"
            + "time_us_max,algbw_GBps,busbw_GBps,max_err,alloc_bytes_per_call,wire_bytes_per_call,"
            + "dense_wire_bytes_per_call,cpu_us_per_call";

    /** True if this row was checked. */
    boolean checked() {
        return !Double.isNaN(maxErr);
    }

    /** True if this row was checked and its error is within {@link BenchData#tolerance} of its type. */
    boolean passed() {
        if (!checked()) {
            return false;
        }
        double tolerance = type.isEmpty() ? 0 : BenchData.tolerance(BenchPlan.parseType(type));
        return maxErr <= tolerance;
    }

    /** This row as one CSV line, in {@link #CSV_HEADER}'s order (no field needs quoting). */
    String toCsv() {
        return String.join(",", op, Long.toString(sizeBytes), Long.toString(count), type, redop, algorithm,
                fixed(medianUs, 3), fixed(minUs, 3), fixed(maxUs, 3), fixed(algbwGBps, 6), fixed(busbwGBps, 6),
                checked() ? error(maxErr) : "", measured(allocBytesPerCall), measured(wireBytesPerCall),
                measured(denseWireBytesPerCall), cpuUsPerCall < 0 ? "" : fixed(cpuUsPerCall, 1));
    }

    /**
     * Reads a line written by {@link #toCsv()}.
     *
     * @throws IllegalArgumentException if the line does not have 16 fields (or 12, 13 or 15: a file written before the
     *                                  allocation, the wire or the CPU columns)
     */
    static BenchResult fromCsv(String line) {
        String[] f = line.split(",", -1);
        if (f.length != 16 && f.length != 15 && f.length != 13 && f.length != 12) {
            throw new IllegalArgumentException("bench result line has " + f.length + " fields, expected 16: " + line);
        }
        return new BenchResult(f[0], Long.parseLong(f[1]), Long.parseLong(f[2]), f[3], f[4], f[5],
                Double.parseDouble(f[6]), Double.parseDouble(f[7]), Double.parseDouble(f[8]), Double.parseDouble(f[9]),
                Double.parseDouble(f[10]), f[11].isEmpty() ? Double.NaN : f[11].equals("inf") ? Double.POSITIVE_INFINITY
                : Double.parseDouble(f[11]),
                f.length < 13 || f[12].isEmpty() ? UNMEASURED : Long.parseLong(f[12]),
                f.length < 15 || f[13].isEmpty() ? UNMEASURED : Long.parseLong(f[13]),
                f.length < 15 || f[14].isEmpty() ? UNMEASURED : Long.parseLong(f[14]),
                f.length < 16 || f[15].isEmpty() ? UNMEASURED : Double.parseDouble(f[15]));
    }

    private static String measured(long v) {
        return v == UNMEASURED ? "" : Long.toString(v);
    }

    /** An error as printed: {@code 0}, or three significant digits such as {@code 5.96e-08}. */
    static String error(double e) {
        return e == 0 ? "0" : Double.isInfinite(e) ? "inf" : String.format(Locale.ROOT, "%.2e", e);
    }

    private static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
