package io.nexar.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The hang reports of all ranks of a run, grouped: what {@code nexar launch} (and {@code nexar bench}, which runs
 * through it) prints once the ranks have ended, after their output (docs/failure-model.md, "Hang reports"). Each
 * rank's reports arrive as blocks ({@link ChildProcesses#BLOCKS}); this keeps the last report per rank and operation
 * and prints, for example:
 *
 * <pre>
 * nexar: hang reports of ranks 0, 1, 2, 3 (4 ranks), grouped:
 *   ranks 0, 1, 2 were in barrier #0 on communicator 0
 *   rank 3 was in recv from rank 0 tag 7 on communicator 0
 *   what the ranks they waited for were doing:
 *   world rank 3 (asked by ranks 0, 1, 2): recv from rank 0 tag 7 on communicator 0 for 1.0 s
 *   world rank 0 (asked by rank 3): barrier #0 on communicator 0 (step 1 of 2, waiting for rank 3) for 1.0 s
 * </pre>
 *
 * The rank that causes a hang is the one that many ask about and that waits for nothing they do. Ranks are taken
 * from the reports' own first lines ({@code world rank R of N}). Thread-safe: each child's output pump adds to it.
 */
final class HangReportSummary {
    /** What a report's first line starts with, after the log prefix. */
    static final String MARKER = "nexar hang report: ";
    private static final Pattern HEAD = Pattern.compile("world rank (\\d+) of (\\d+) is in (.*)");
    /** The operation of a head: up to its communicator; the step, the ranks awaited and the time vary. */
    private static final Pattern OPERATION = Pattern.compile("^(.+? on communicator -?\\d+)");
    private static final Pattern AWAITED = Pattern.compile("^ {2}world rank (\\d+): (.*)$");
    /** Durations in a status ("for 1.2 s", "ended 3.4 s ago"): different in each report of the same state. */
    private static final Pattern DURATION = Pattern.compile("\\d+(\\.\\d+)? s\\b");

    /** A report's first line (without the marker) and its awaited ranks' states, by world rank. */
    private record Report(String operation, Map<Integer, String> awaited) {
    }

    /** The last report of each (world rank, operation). */
    private final Map<Integer, Map<String, Report>> reports = new TreeMap<>();
    /** The awaited ranks of the last report each source (a child's output stream) added. */
    private final Map<Integer, Map<Integer, String>> lastOfSource = new TreeMap<>();

    /**
     * Adds a forwarded block if it is a hang report: its first line contains {@link #MARKER} (not within an
     * exception's message that quotes a report, which may come before the report itself and carry the closing
     * brackets of its message on its last line), its lines {@code "  world rank R: ..."} say what the awaited ranks
     * do.
     *
     * @param block the block's lines, as the child wrote them
     * @param fallbackRank the rank to file it under if its first line does not name one
     * @param source the stream it came from (any number that tells a child's streams apart)
     */
    synchronized void add(List<String> block, int fallbackRank, int source) {
        String first = block.getFirst();
        int at = first.indexOf(MARKER);
        if (at < 0 || first.substring(0, at).contains("Exception")) {
            return; // not a report, or one quoted by a failure's message (a peer-down line, the bench's last error)
        }
        String head = first.substring(at + MARKER.length());
        int rank = fallbackRank;
        String doing = head;
        Matcher h = HEAD.matcher(head);
        if (h.matches()) {
            rank = Integer.parseInt(h.group(1));
            doing = h.group(3);
        }
        Matcher op = OPERATION.matcher(doing);
        String operation = op.find() ? op.group(1) : DURATION.matcher(doing).replaceAll("# s");
        var awaited = new LinkedHashMap<Integer, String>();
        for (String line : block.subList(1, block.size())) {
            Matcher a = AWAITED.matcher(line);
            if (a.matches()) {
                awaited.put(Integer.parseInt(a.group(1)), a.group(2));
            }
        }
        reports.computeIfAbsent(rank, r -> new LinkedHashMap<>()).put(operation, new Report(operation, awaited));
        lastOfSource.put(source, awaited);
    }

    /**
     * Adds one message of this JVM's log backend ({@link CliLogProvider#tap}) if it is a hang report: the ranks of
     * {@code nexar bench --in-process} share this JVM, and each report is one message of several lines.
     *
     * @param message the message as written, its lines separated by line breaks
     */
    void addLogLine(String message) {
        if (message.contains(MARKER)) {
            add(List.of(message.split("\\R")), -1, -1);
        }
    }

    /**
     * Adds a line that followed a hang report from the same source but arrived after its block was forwarded (the
     * pump never waits for more lines): a {@code "  world rank R: ..."} line belongs to that report.
     *
     * @param line the line
     * @param source the stream, as given to {@link #add}
     */
    synchronized void continued(String line, int source) {
        Map<Integer, String> awaited = lastOfSource.get(source);
        Matcher a = AWAITED.matcher(line);
        if (awaited != null && a.matches()) {
            awaited.put(Integer.parseInt(a.group(1)), a.group(2));
        }
    }

    /**
     * Ends the report of a source: later lines from it are not the report's.
     *
     * @param source the stream, as given to {@link #add}
     */
    synchronized void ended(int source) {
        lastOfSource.remove(source);
    }

    /** {@return true if no hang report was added} */
    synchronized boolean isEmpty() {
        return reports.isEmpty();
    }

    /**
     * Prints the grouped reports (nothing if there are none).
     *
     * @param to where to print
     * @param worldSize the number of ranks of the run, to name those without a report; -1 if not known
     */
    synchronized void print(PrintStream to, int worldSize) {
        if (reports.isEmpty()) {
            return;
        }
        var lines = new ArrayList<String>();
        lines.add("nexar: hang reports of " + ranks(reports.keySet()) + " (" + reports.size()
                + (reports.size() == 1 ? " rank" : " ranks") + "), grouped:");
        // the ranks in each operation, in the order of their first rank
        var byOperation = new LinkedHashMap<String, TreeSet<Integer>>();
        // what each awaited rank was doing (durations aside) and who asked
        var byState = new TreeMap<Integer, LinkedHashMap<String, TreeSet<Integer>>>();
        var firstText = new LinkedHashMap<String, String>();
        reports.forEach((rank, ops) -> ops.values().forEach(r -> {
            byOperation.computeIfAbsent(r.operation(), k -> new TreeSet<>()).add(rank);
            r.awaited().forEach((w, text) -> {
                String key = w + ":" + DURATION.matcher(text).replaceAll("# s");
                firstText.putIfAbsent(key, text);
                byState.computeIfAbsent(w, k -> new LinkedHashMap<>()).computeIfAbsent(key, k -> new TreeSet<>())
                        .add(rank);
            });
        }));
        byOperation.forEach((operation, ranks) -> lines.add("  " + ranks(ranks) + (ranks.size() == 1 ? " was" : " were")
                + " in " + operation));
        if (!byState.isEmpty()) {
            lines.add("  what the ranks they waited for were doing:");
            byState.forEach((w, states) -> states.forEach((key, askers) -> lines.add("  world rank " + w
                    + " (asked by " + ranks(askers) + "): " + firstText.get(key))));
        }
        if (worldSize > 0) {
            var silent = new TreeSet<Integer>();
            for (int r = 0; r < worldSize; r++) {
                if (!reports.containsKey(r)) {
                    silent.add(r);
                }
            }
            if (!silent.isEmpty()) {
                lines.add("  no hang report from " + ranks(silent));
            }
        }
        synchronized (to) {
            lines.forEach(to::println);
        }
    }

    /** {@code rank 3} or {@code ranks 0, 1, 2}. */
    private static String ranks(java.util.Collection<Integer> ranks) {
        return (ranks.size() == 1 ? "rank " : "ranks ")
                + ranks.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }
}
