package io.nexar.internal.collective;

import io.nexar.CollectiveMismatchException;
import io.nexar.CollectiveMismatchException.Field;
import io.nexar.ErrorContext;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.HangReports;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.LogContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the {@link CollectiveEngine} tells people and peers about its operations, apart from running them: the lines of
 * hang reports and {@code Communicator.diagnostics()}, flight-recorder dumps, mismatch probes of a stalled round, and
 * the verdict on a chunk that arrives after its operation ended; and for a waiting driver, the stall checks of its
 * round (probes, hang report) and the sender a timeout names. Stateless: it reads each communicator's tables under
 * its shard's lock. {@link #describe}, {@link #describeRecent} and {@link #logRecent} take those locks themselves (the
 * last logs after it released it); every other method runs under the lock of the shard concerned.
 */
final class EngineReports {
    private static final Logger LOG = LoggerFactory.getLogger(CollectiveEngine.class);

    private EngineReports() {
    }

    /**
     * Adds a line per operation in progress and per communicator with none ("idle since ..."), and the world ranks the
     * operations wait for to {@code waitingFor}.
     */
    static void describe(CollectiveEngine e, List<String> lines, Set<Integer> waitingFor) {
        long now = System.nanoTime();
        var idles = new ArrayList<String>(); // after every operation in progress
        e.comms.forEachLocked(cs -> {
            boolean busy = false;
            for (int i = 0; i < cs.active.capacity(); i++) {
                OpState op = cs.active.at(i);
                if (op != null) {
                    busy = true;
                    lines.add(doing(op, now, waitingFor));
                }
            }
            String idle = busy ? null : cs.idle(cs.id, now);
            if (idle != null) {
                idles.add(idle);
            }
        });
        lines.addAll(idles);
    }

    /**
     * What operation {@code op} is doing, for a hang report, for example {@code barrier #5 on communicator 0 (step 2
     * of 2, waiting for rank 3) for 10.0 s}; adds the world ranks it waits for to {@code waitingFor}. Under the lock.
     */
    static String doing(OpState op, long now, Set<Integer> waitingFor) {
        var sb = new StringBuilder(op.fingerprint.label()).append(" #").append(op.seq)
                .append(" on communicator ").append(op.group.id());
        if (op.failure != null) {
            sb.append(" (failing: ").append(op.failure.getMessage()).append(')');
        } else if (op.round < 0) {
            sb.append(" (posted, no step started)");
        } else {
            sb.append(" (step ").append(op.round + 1).append(" of ").append(op.schedule.roundCount());
            var waiting = new TreeSet<Integer>();
            for (int i = 0; i < op.slots.size(); i++) {
                if (!op.slots.slotAt(i).done) {
                    waiting.add(op.slots.peerAt(i));
                }
            }
            if (waiting.isEmpty()) {
                sb.append(", sending");
            } else {
                sb.append(", waiting for ");
                String sep = "";
                for (int r : waiting) {
                    int w = op.group.world(r);
                    waitingFor.add(w);
                    sb.append(sep).append("rank ").append(r);
                    if (w != r) {
                        sb.append(" (world rank ").append(w).append(')');
                    }
                    sep = ", ";
                }
            }
            sb.append(')');
        }
        return sb.append(" for ").append(OpState.seconds(now - op.postedNanos)).append(" s").toString();
    }

    /** Adds the flight recorder of every communicator: a heading each, then a line per operation, oldest first. */
    static void describeRecent(CollectiveEngine engine, List<String> lines) {
        engine.comms.forEachLocked(cs -> {
            String block = recent(cs, cs.id, FlightRecorder.SIZE, "");
            if (!block.isEmpty()) {
                lines.add(block);
            }
        });
    }

    /**
     * The last {@code last} operations of communicator {@code comm} (state {@code cs}, or null) on this rank: a
     * heading, then a line each indented two spaces more, every line starting with {@code indent}; "" if none.
     */
    static String recent(CommState cs, int comm, int last, String indent) {
        if (cs == null) {
            return "";
        }
        var ops = new ArrayList<String>();
        cs.recorder.render(last, System.nanoTime(), ops);
        if (ops.isEmpty()) {
            return "";
        }
        var sb = new StringBuilder(indent).append("flight recorder of communicator ").append(comm)
                .append(" (its last operations here, oldest first):");
        ops.forEach(l -> sb.append('\n').append(indent).append("  ").append(l));
        return sb.toString();
    }

    /**
     * Logs the flight recorder of {@code op}'s communicator after {@code op} failed (and ended): read under the lock,
     * logged after.
     */
    static void logRecent(CollectiveEngine e, OpState op) {
        String recent;
        op.lock.lock(); // its shard's
        try {
            recent = recent(e.comms.get(op.group.id()), op.group.id(), FlightRecorder.SIZE, "  ");
        } finally {
            op.lock.unlock();
        }
        if (!recent.isEmpty()) {
            try (var mdc = LogContext.scope(op.context().rank(), op.context().worldSize(), op.context().communicator())) {
                LOG.warn("nexar flight recorder: rank {} of {} after {} #{} failed:\n{}", op.context().rank(),
                        op.context().worldSize(), op.fingerprint.label(), op.seq, recent);
            }
        }
    }

    /**
     * Reports the stalled round of {@code op} to {@code h} (its own state, the ranks it waits for and its
     * communicator's recent operations, from {@link #recent}); the report comes back into {@code op.hangReport}.
     */
    static void reportHang(HangReports h, OpState op, long now, String recent) {
        var waiting = new TreeSet<Integer>();
        String doing = doing(op, now, waiting);
        h.stalled(doing, waiting.stream().mapToInt(Integer::intValue).toArray(), recent.isEmpty() ? "" : "\n" + recent,
                report -> op.hangReport = report);
    }

    /**
     * The stall checks of the open round of {@code op} at {@code now}, its driver about to wait at most {@code left}
     * nanoseconds: once the round made no progress for {@code probeAfter} (0: never), sends {@link MismatchProbe}s
     * through the engine's abort transport ({@link #probe}); once for {@code after} (0: never), reports a hang to
     * {@code h} ({@link #reportHang}, with the last operations of its communicator). Each at most once per round
     * (probe) or per operation (hang report). Driver thread, under the lock; allocates nothing unless it probes or
     * reports.
     *
     * @return how long the driver may wait before the next check, or -1 after a hang report (check again at once)
     */
    static long stalled(CollectiveEngine e, HangReports h, OpState op, long now, long left, long probeAfter,
                        long after) {
        if (probeAfter > 0 && op.probedRound != op.round) { // a stalled round asks its senders if they run the same call
            long toProbe = op.progressNanos + probeAfter - now;
            if (toProbe <= 0) {
                op.probedRound = op.round;
                probe(e.abortTransport, op);
            } else {
                left = Math.min(left, toProbe);
            }
        }
        if (after > 0 && !op.hangReported) {
            long toReport = op.progressNanos + after - now;
            if (toReport <= 0) {
                op.hangReported = true;
                reportHang(h, op, now, recent(e.comms.get(op.group.id()), op.group.id(), 8, "  "));
                return -1;
            }
            left = Math.min(left, toReport);
        }
        return left;
    }

    /**
     * Nanoseconds from {@code now} until {@link #stalled} may have something to do for {@code op}'s open round (zero or
     * less: now; {@link Long#MAX_VALUE}: never). Driver thread, without the lock: the fields it reads are the driver's
     * own, except {@code progressNanos}, whose stale value only makes the check come early (the check itself runs
     * under the lock).
     */
    static long untilStallCheck(OpState op, long now, long probeAfter, long after) {
        long progress = op.progressNanos;
        long next = Long.MAX_VALUE;
        if (probeAfter > 0 && op.probedRound != op.round) {
            next = progress + probeAfter - now;
        }
        if (after > 0 && !op.hangReported) {
            next = Math.min(next, progress + after - now);
        }
        return next;
    }

    /** The first (lowest) sender the open round of {@code op} still waits for, or -1: what a timeout names. */
    static int awaited(OpState op) {
        int first = -1;
        for (int i = 0; i < op.slots.size(); i++) {
            int peer = op.slots.peerAt(i);
            if (!op.slots.slotAt(i).done && (first < 0 || peer < first)) {
                first = peer;
            }
        }
        return first;
    }

    /** Sends {@link MismatchProbe}s to the senders the open round of {@code op} still waits for (none: no transport). */
    static void probe(Transport t, OpState op) {
        if (t == null) {
            return;
        }
        int[] ranks = new int[op.slots.size()];
        int n = 0;
        for (int i = 0; i < op.slots.size(); i++) {
            if (!op.slots.slotAt(i).done) {
                ranks[n++] = op.slots.peerAt(i);
            }
        }
        if (n > 0) {
            MismatchProbe.send(t, op, java.util.Arrays.copyOf(ranks, n));
        }
    }

    /**
     * The verdict on chunk {@code c} from world rank {@code peer} of an operation that already ended here (state of
     * its communicator {@code cs}). After a failure that is normal (the others' chunks were under way); after a
     * success it cannot be: this rank's schedule took every chunk it expected, so the sender ran another schedule (a
     * different root, operation or count), issue 14's silent wrong answer. Returns that mismatch, logged, or null when
     * there is nothing to say (failed here, forgotten, already broken, or a probe of an operation that matched).
     */
    static CollectiveMismatchException lateChunk(CommState cs, int peer, Message.Collective c) {
        Fingerprint fp = cs.succeeded(c.opSeq());
        if (fp == null || cs.group == null || cs.broken != null) {
            return null; // failed here, forgotten (over REMEMBERED operations ago), or already known to be broken
        }
        int src = cs.group.local(peer);
        Fingerprint.Mismatch m = fp.compare(c, src);
        if (m == null && MismatchProbe.is(c)) {
            return null; // a probe of an operation that matched
        }
        Field field = m == null ? Field.SCHEDULE : m.field();
        String detail = m == null ? "rank " + src + " sent a message (step " + c.step() + ") that this rank's"
                + " schedule never expects: the ranks ran different schedules" : m.detail();
        ErrorContext context = cs.context(c.opSeq()).withPeer(src);
        var failure = new CollectiveMismatchException(context, field, "did not match rank " + src
                + " (found after it returned here): " + detail);
        try (var mdc = LogContext.scope(context.rank(), context.worldSize(), context.communicator())) {
            LOG.warn(failure.getMessage());
        }
        return failure;
    }
}
