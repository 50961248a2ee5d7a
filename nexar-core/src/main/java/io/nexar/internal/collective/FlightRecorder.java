package io.nexar.internal.collective;

import io.nexar.NexarException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * One communicator's flight recorder (issue 14 item 4): its last {@link #SIZE} collective operations on this rank
 * (operation, fingerprint, sequence number, when posted, how long, outcome) in fixed arrays indexed by sequence
 * number, so recording allocates nothing; bytes and peers are derived from the operation's schedule only when the
 * record is rendered. Rendered into hang reports, logged with every failed operation, and returned by
 * {@code Communicator.diagnostics()}. Guarded by its {@link CommState}'s lock.
 */
final class FlightRecorder {
    /** Operations kept per communicator. */
    static final int SIZE = CommState.REMEMBERED;
    /** Longest failure message kept in a rendered line. */
    private static final int MAX_FAILURE_CHARS = 240;

    private final long[] seq = new long[SIZE];
    private final Fingerprint[] fingerprint = new Fingerprint[SIZE];
    private final long[] postedNanos = new long[SIZE];
    private final long[] endedNanos = new long[SIZE];
    private final Schedule[] schedule = new Schedule[SIZE];
    /** Bytes per element of the schedule (not always the fingerprint's type: a compressed allReduce moves bytes). */
    private final int[] elementBytes = new int[SIZE];
    private final NexarException[] failure = new NexarException[SIZE];
    private long newest = -1;

    FlightRecorder() {
        Arrays.fill(seq, -1);
    }

    /** Records that {@code op} ended at {@code now} (System.nanoTime), failed if {@code op.failure} is set. */
    void record(OpState op, long now) {
        int i = (int) (op.seq % SIZE);
        seq[i] = op.seq;
        fingerprint[i] = op.fingerprint;
        postedNanos[i] = op.postedNanos;
        endedNanos[i] = now;
        schedule[i] = op.schedule;
        elementBytes[i] = op.type.byteSize();
        failure[i] = op.failure;
        newest = Math.max(newest, op.seq);
    }

    /** The fingerprint of operation {@code seq} if it is recorded and succeeded, else null. */
    Fingerprint succeeded(long seq) {
        int i = (int) (seq % SIZE);
        return seq >= 0 && this.seq[i] == seq && failure[i] == null ? fingerprint[i] : null;
    }

    /**
     * For example {@code idle on communicator 0 since allReduce #4 ended 10.1 s ago}: the last operation recorded, for
     * a communicator with none in progress; null before the first.
     */
    String idle(int comm, long now) {
        if (newest < 0) {
            return null;
        }
        int i = (int) (newest % SIZE);
        return "idle on communicator " + comm + " since " + fingerprint[i].label() + " #"
                + newest + (failure[i] == null ? " ended " : " failed ") + OpState.seconds(now - endedNanos[i])
                + " s ago";
    }

    /** Adds a line for each of the last {@code last} operations recorded, oldest first. */
    void render(int last, long now, List<String> lines) {
        for (long s = Math.max(0, newest - Math.min(last, SIZE) + 1); s <= newest; s++) {
            int i = (int) (s % SIZE);
            if (seq[i] == s) {
                lines.add(line(i, now));
            }
        }
    }

    private String line(int i, long now) {
        Fingerprint f = fingerprint[i];
        var sb = new StringBuilder(f.label()).append(" #").append(seq[i]);
        if (f.operation() != io.nexar.Operation.BARRIER) {
            sb.append(" (").append(f.type().name().toLowerCase(Locale.ROOT));
            if (f.op() != null) {
                sb.append(' ').append(f.op().name().toLowerCase(Locale.ROOT));
            }
            sb.append(", count ").append(f.count());
            if (f.root() >= 0 && f.operation() == io.nexar.Operation.ALL_REDUCE) {
                sb.append(", ").append(Fingerprint.describeLayout(f.root()));
            } else if (f.root() >= 0) {
                sb.append(", root ").append(f.root());
            }
            sb.append(')');
        }
        sb.append(": posted ").append(OpState.seconds(now - postedNanos[i])).append(" s ago, took ")
                .append(duration(endedNanos[i] - postedNanos[i]));
        var to = new TreeSet<Integer>();
        var from = new TreeSet<Integer>();
        for (List<Step> round : schedule[i].rounds()) {
            for (Step st : round) {
                switch (st) {
                    case Step.Send x -> to.add(x.peer());
                    case Step.RecvInto x -> from.add(x.peer());
                    case Step.RecvReduce x -> from.add(x.peer());
                    default -> {
                    }
                }
            }
        }
        long sent = bytesSent(schedule[i], elementBytes[i]);
        sb.append(", sent ").append(sent).append(" B to ranks ").append(to).append(", received from ranks ")
                .append(from).append(": ");
        NexarException e = failure[i];
        if (e == null) {
            return sb.append("ok").toString();
        }
        String m = (e.getClass().getSimpleName() + ": " + e.getMessage()).replace('\n', ' ');
        return sb.append("failed, ").append(m.length() > MAX_FAILURE_CHARS ? m.substring(0, MAX_FAILURE_CHARS) + " ..."
                : m).toString();
    }

    /** Payload bytes {@code s} sends in all, with elements of {@code w} bytes. */
    static long bytesSent(Schedule s, int w) {
        return s.bytesSent(w);
    }

    /** For example {@code 45.2 us}, {@code 3.10 ms}, {@code 1.204 s}. */
    static String duration(long nanos) {
        if (nanos < 1_000_000) {
            return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
        }
        return nanos < 1_000_000_000 ? String.format(Locale.ROOT, "%.2f ms", nanos / 1e6)
                : String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
    }
}
