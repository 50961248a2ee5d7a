package io.nexar.internal.p2p;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The point-to-point flight recorder of one process (issue 14 item 4): its last {@link #SIZE} sends, receives and
 * probes (kind, communicator, peer, tag, bytes, when started, how long, outcome) in a fixed ring of array slots, so
 * that recording allocates nothing. Rendered into hang reports and {@code Communicator.diagnostics()}, next to the
 * collectives' recorders. Thread-safe (a short lock per record).
 */
public final class P2pRecorder {
    /** Operations kept. */
    public static final int SIZE = 64;
    /** Longest failure message kept in a rendered line. */
    private static final int MAX_FAILURE_CHARS = 240;

    /** What was recorded. */
    public enum Kind {
        /** A blocking send. */
        SEND("send", "to"),
        /** A blocking receive. */
        RECV("recv", "from"),
        /** A non-blocking send, recorded when it ended. */
        ISEND("isend", "to"),
        /** A non-blocking receive, recorded when it was awaited to its end. */
        IRECV("irecv", "from"),
        /** A blocking probe. */
        PROBE("probe", "from");

        private final String display;
        private final String direction;

        Kind(String display, String direction) {
            this.display = display;
            this.direction = direction;
        }
    }

    private final Kind[] kind = new Kind[SIZE];
    private final int[] communicator = new int[SIZE];
    private final int[] peer = new int[SIZE];
    private final int[] tag = new int[SIZE];
    private final long[] bytes = new long[SIZE];
    private final long[] startedNanos = new long[SIZE];
    private final long[] endedNanos = new long[SIZE];
    private final RuntimeException[] failure = new RuntimeException[SIZE];
    /** Operations recorded so far; the next goes to slot {@code recorded % SIZE}. */
    private long recorded;

    /**
     * Records one ended operation.
     *
     * @param k what it was
     * @param comm the communicator id
     * @param rank the peer in the communicator's numbering, -1 for any source that did not complete
     * @param userTag the tag, -1 for any tag that did not complete
     * @param byteCount the bytes sent or received, -1 if unknown (a failed receive)
     * @param startNanos when it started (System.nanoTime)
     * @param endNanos when it ended (System.nanoTime)
     * @param error its failure, or null
     */
    public synchronized void record(Kind k, int comm, int rank, int userTag, long byteCount, long startNanos,
                                    long endNanos, RuntimeException error) {
        int i = (int) (recorded++ % SIZE);
        kind[i] = k;
        communicator[i] = comm;
        peer[i] = rank;
        tag[i] = userTag;
        bytes[i] = byteCount;
        startedNanos[i] = startNanos;
        endedNanos[i] = endNanos;
        failure[i] = error;
    }

    /**
     * The recorded operations as a block: a heading, then a line each (oldest first), every line starting with
     * {@code indent} and each operation's two spaces more; "" if none.
     *
     * @param indent what every line starts with
     * @param last at most this many operations, the most recent
     * @return the block, or ""
     */
    public String render(String indent, int last) {
        var lines = new ArrayList<String>();
        lines(System.nanoTime(), last, lines);
        if (lines.isEmpty()) {
            return "";
        }
        var sb = new StringBuilder(indent).append("point-to-point recorder (the last sends, receives and probes"
                + " here, oldest first):");
        lines.forEach(l -> sb.append('\n').append(indent).append("  ").append(l));
        return sb.toString();
    }

    /** Adds a line for each of the last {@code last} operations, oldest first. */
    synchronized void lines(long now, int last, List<String> out) {
        long first = Math.max(0, recorded - Math.min(last, SIZE));
        for (long s = first; s < recorded; s++) {
            out.add(line((int) (s % SIZE), now));
        }
    }

    private String line(int i, long now) {
        var sb = new StringBuilder(kind[i].display).append(' ').append(kind[i].direction).append(' ')
                .append(peer[i] < 0 ? "any rank" : "rank " + peer[i]).append(" tag ")
                .append(tag[i] < 0 ? "any" : Integer.toString(tag[i])).append(" on communicator ")
                .append(communicator[i]);
        if (bytes[i] >= 0) {
            sb.append(" (").append(bytes[i]).append(" B)");
        }
        sb.append(": started ").append(String.format(Locale.ROOT, "%.1f", (now - startedNanos[i]) / 1e9))
                .append(" s ago, took ").append(duration(endedNanos[i] - startedNanos[i])).append(": ");
        RuntimeException e = failure[i];
        if (e == null) {
            return sb.append("ok").toString();
        }
        String m = (e.getClass().getSimpleName() + ": " + e.getMessage()).replace('\n', ' ');
        return sb.append("failed, ").append(m.length() > MAX_FAILURE_CHARS ? m.substring(0, MAX_FAILURE_CHARS) + " ..."
                : m).toString();
    }

    private static String duration(long nanos) {
        if (nanos < 1_000_000) {
            return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
        }
        return nanos < 1_000_000_000 ? String.format(Locale.ROOT, "%.2f ms", nanos / 1e6)
                : String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
    }
}
