package io.nexar.internal.transport;

import io.nexar.OperationTimeoutException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The blocking point-to-point calls of this process that wait without a receive posted in the mailbox: blocking
 * sends (waiting for the receiver to take their chunks, for example while its store of unexpected messages is full,
 * or for an earlier {@code isend} to the same rank) and blocking probes. A pending {@code recv} reports its own hang
 * (the mailbox's waiting thread computes its deadline); these calls wait inside the transport or the mailbox, so a
 * watchdog reports for them (docs/failure-model.md "Hang reports").
 *
 * <pre>
 *  send / probe ── begin() ──▶ calls ◀── watchdog (one virtual thread, started by the first call): wakes at the
 *       │  progress(bytes)          earliest "last progress + hang.report.after", reports each call due once
 *       └─ end() ──────────────▶ removed
 * </pre>
 *
 * <p>Cost: one small record per blocking send or probe and its entry in a concurrent set (a report's text is built
 * only when one is made), two volatile writes per chunk sent; the watchdog wakes once per {@code hang.report.after}
 * while nothing is due. Threading: any thread begins and ends calls; the watchdog only
 * reads them and starts reports on {@link HangReports}'s virtual threads.
 */
public final class BlockedCalls {
    private final HangReports reports;
    private final long afterNanos;
    private final Set<Call> calls = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean closed;
    private volatile Thread watchdog;

    BlockedCalls(HangReports reports, long afterNanos) {
        this.reports = reports;
        this.afterNanos = afterNanos;
    }

    /** A blocking point-to-point call in progress; ended by {@link #end}. */
    public static final class Call {
        private final String verb;
        /** The awaited rank in the communicator's numbering, or -1 for any. */
        private final int peer;
        private final int worldPeer;
        private final int tag;
        private final int communicator;
        private final long bytes;
        private final long deadlineNanos;
        private final long startNanos = System.nanoTime();
        private volatile long progressNanos = startNanos;
        private volatile long doneBytes;
        private boolean reported; // watchdog thread only
        private volatile String report;

        private Call(String verb, int peer, int worldPeer, int tag, int communicator, long bytes,
                     long deadlineNanos) {
            this.verb = verb;
            this.peer = peer;
            this.worldPeer = worldPeer;
            this.tag = tag;
            this.communicator = communicator;
            this.bytes = bytes;
            this.deadlineNanos = deadlineNanos;
        }

        /**
         * The call made progress: {@code total} bytes of it are handed over now.
         *
         * @param total the bytes handed over since the call began
         */
        public void progress(long total) {
            doneBytes = total;
            progressNanos = System.nanoTime();
        }

        /** {@return the hang report made for this call, or null} */
        public String report() {
            return report;
        }

        /**
         * For a hang report, for example {@code send to rank 1 tag 5 on communicator 0 (sent 64 of 1024 bytes) for
         * 10.0 s}.
         */
        String describe(long now) {
            var sb = new StringBuilder(verb).append(' ');
            if (peer < 0) {
                sb.append("any rank");
            } else {
                sb.append("rank ").append(peer);
                if (peer != worldPeer) {
                    sb.append(" (world rank ").append(worldPeer).append(')');
                }
            }
            sb.append(" tag ")
                    .append(tag < 0 ? "any" : Integer.toString(tag)).append(" on communicator ").append(communicator);
            if (bytes >= 0) {
                sb.append(" (sent ").append(doneBytes).append(" of ").append(bytes).append(" bytes)");
            }
            return sb.append(" for ").append(String.format(Locale.ROOT, "%.1f", (now - startNanos) / 1e9))
                    .append(" s").toString();
        }
    }

    /**
     * Registers a blocking call; the caller ends it with {@link #end} in a {@code finally}.
     *
     * @param verb {@code "send to"} or {@code "probe from"}
     * @param peer the awaited rank in the communicator's numbering, or -1 for any
     * @param worldPeer the awaited world rank, or -1 for any
     * @param tag the tag, or -1 for any
     * @param communicator the communicator's id
     * @param bytes the bytes a send hands over, or -1 for a probe
     * @param deadlineNanos the call's deadline (System.nanoTime): no report is made for a call that ends first
     * @return the call
     */
    public Call begin(String verb, int peer, int worldPeer, int tag, int communicator, long bytes,
                      long deadlineNanos) {
        var c = new Call(verb, peer, worldPeer, tag, communicator, bytes, deadlineNanos);
        calls.add(c);
        if (afterNanos > 0 && !started.get() && started.compareAndSet(false, true)) {
            watchdog = Thread.ofVirtual().name("nexar-hang-watchdog").start(this::watch);
        }
        return c;
    }

    /**
     * The call ended, whatever its outcome.
     *
     * @param c the call {@link #begin} returned
     */
    public void end(Call c) {
        calls.remove(c);
    }

    /** Lines describing the calls in progress, for a hang report; adds the world ranks they await. */
    void describe(List<String> lines, Set<Integer> waitingFor) {
        long now = System.nanoTime();
        for (Call c : calls) {
            if (c.worldPeer >= 0) {
                waitingFor.add(c.worldPeer);
            }
            lines.add(c.describe(now));
        }
    }

    /** The watchdog's loop: reports every call that made no progress for {@code hang.report.after}, once. */
    private void watch() {
        while (!closed) {
            long now = System.nanoTime();
            long next = now + afterNanos;
            for (Call c : calls) {
                if (c.reported) {
                    continue;
                }
                long due = c.progressNanos + afterNanos;
                if (due - now > 0) {
                    next = due - next < 0 ? due : next;
                } else if (c.deadlineNanos - now > 0) {
                    c.reported = true;
                    int[] awaited = c.worldPeer >= 0 ? new int[] {c.worldPeer} : new int[0];
                    reports.stalled(c.describe(now), awaited, "", r -> c.report = r);
                }
            }
            LockSupport.parkNanos(this, Math.max(1, next - System.nanoTime()));
        }
    }

    /** Stops the watchdog (the process closes). */
    void close() {
        closed = true;
        Thread t = watchdog;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * {@code e} with {@code report} appended to its message, as the timeout of a waiting operation carries its hang
     * report; {@code e} itself if there is no report.
     *
     * @param e the timeout of a blocking call
     * @param report the call's hang report, or null
     * @return the timeout to throw
     */
    public static OperationTimeoutException withReport(OperationTimeoutException e, String report) {
        if (report == null) {
            return e;
        }
        String message = e.getMessage();
        int at = message.indexOf(" waiting for ");
        String waitingFor = at < 0 ? "the peer" : message.substring(at + " waiting for ".length());
        var carried = new OperationTimeoutException(e.context(), e.timeout(), waitingFor + "; " + report);
        carried.setStackTrace(e.getStackTrace());
        return carried;
    }
}
