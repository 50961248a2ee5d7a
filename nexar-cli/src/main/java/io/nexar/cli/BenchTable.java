package io.nexar.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Prints {@code nexar bench} results as a table (nccl-tests' layout) and writes them as CSV. */
final class BenchTable {
    private static final String ROW = "%-13s %11s %11s %5s %5s %-18s %11s %11s %11s %10s %10s %10s %10s";

    private BenchTable() {
    }

    /**
     * The header lines of the table; {@code check} adds the {@code max_err} column. {@code alloc} is the heap memory
     * the busiest rank's JVM allocated per call (all its threads), in bytes; {@code cpu} the CPU time of all ranks'
     * JVMs per call, in microseconds.
     */
    static void header(PrintStream out, boolean check) {
        out.println(String.format(Locale.ROOT, ROW + (check ? " %9s" : ""), "#op", "size", "count", "type", "redop",
                "algorithm", "median", "min", "max", "algbw", "busbw", "alloc", "cpu", "max_err").stripTrailing());
        out.println(String.format(Locale.ROOT, ROW + (check ? " %9s" : ""), "#", "(B)",
                "(elements)", "", "", "", "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "(B/call)", "(us/call)", "").stripTrailing());
    }

    /** One row; {@code check} adds the {@code max_err} column. */
    static void row(PrintStream out, BenchResult r, boolean check) {
        String line = String.format(Locale.ROOT, ROW, r.op(), r.sizeBytes(), r.count(), dash(r.type()),
                dash(r.redop()), r.algorithm(), us(r.medianUs()), us(r.minUs()), us(r.maxUs()),
                String.format(Locale.ROOT, "%.3f", r.algbwGBps()), String.format(Locale.ROOT, "%.3f", r.busbwGBps()),
                r.allocBytesPerCall() == BenchResult.UNMEASURED ? "-" : Long.toString(r.allocBytesPerCall()),
                r.cpuUsPerCall() < 0 ? "-" : us(r.cpuUsPerCall()));
        if (check) {
            line += String.format(Locale.ROOT, " %9s", r.checked() ? BenchResult.error(r.maxErr()) : "-");
            line += r.checked() && !r.passed() ? "  FAILED" : "";
        }
        out.println(line);
    }

    /**
     * Prints the whole table; with {@code check}, ends with {@code check: P passed, F failed}.
     *
     * @return the number of failed checks
     */
    static int print(PrintStream out, List<BenchResult> results, boolean check) {
        header(out, check);
        for (BenchResult r : results) {
            row(out, r, check);
        }
        for (BenchResult r : results) {
            if (r.wireBytesPerCall() != BenchResult.UNMEASURED) {
                out.println(wireLine(r));
            }
        }
        int failed = 0;
        if (check) {
            int passed = 0;
            for (BenchResult r : results) {
                passed += r.passed() ? 1 : 0;
                failed += r.passed() ? 0 : 1;
            }
            out.println(checkLine(passed, failed));
        }
        return failed;
    }

    /**
     * The bytes on the wire of a row that measured them, for example {@code # wire: allreduce-compressed 4194304 B:
     * 167772 B per rank per call, dense allreduce 6291456 B (2.67%)}.
     */
    static String wireLine(BenchResult r) {
        String dense = r.denseWireBytesPerCall() <= 0 ? "" : String.format(Locale.ROOT, ", dense allreduce %d B"
                + " (%.2f%%)", r.denseWireBytesPerCall(), 100.0 * r.wireBytesPerCall() / r.denseWireBytesPerCall());
        return String.format(Locale.ROOT, "# wire: %s %d B: %d B per rank per call%s", r.op(), r.sizeBytes(),
                r.wireBytesPerCall(), dense);
    }

    /** The closing line of a checked run. */
    static String checkLine(int passed, int failed) {
        return "check: " + passed + " passed, " + failed + " failed";
    }

    /** Writes the header and one line per result. */
    static void writeCsv(Path file, List<BenchResult> results) throws IOException {
        var lines = new ArrayList<String>();
        lines.add(BenchResult.CSV_HEADER);
        results.forEach(r -> lines.add(r.toCsv()));
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /** Reads a file written by {@link #writeCsv}, or appended to line by line by a worker (header optional). */
    static List<BenchResult> readCsv(Path file) throws IOException {
        var out = new ArrayList<BenchResult>();
        if (!Files.exists(file)) {
            return out;
        }
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.isBlank() && !line.equals(BenchResult.CSV_HEADER)) {
                out.add(BenchResult.fromCsv(line));
            }
        }
        return out;
    }

    private static String us(double v) {
        return String.format(Locale.ROOT, v >= 1e5 ? "%.0f" : "%.1f", v);
    }

    private static String dash(String s) {
        return s.isEmpty() ? "-" : s;
    }
}
