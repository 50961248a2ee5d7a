package io.nexar.internal.transport;

import io.nexar.ErrorContext;
import io.nexar.NexarException;
import io.nexar.Operation;
import io.nexar.internal.p2p.P2pRecorder;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.LogContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hang reports (docs/failure-model.md "Hang reports"): when an operation of this process made no progress for
 * {@code hang.report.after}, it asks the ranks it waits for what they are doing (STATUS on the control lane, which
 * never waits behind data), follows their answers to the ranks they wait for in turn, and logs one report that starts
 * with {@code nexar hang report:}. It also answers the same question from other ranks.
 *
 * <pre>
 *  waiting rank                                  asked rank
 *  stalled(): STATUS question      ── control ─▶  onStatus(): describes its receive sides
 *             (to every awaited rank)            ◀─ control ── STATUS answer: text, ranks it waits for
 *  next wave: ranks named in answers, not yet asked; at most {@link #WAVES} waves, {@link #ANSWER_WAIT} each
 *  log WARN "nexar hang report: ..."; the waiting operation keeps the text for its timeout error
 * </pre>
 *
 * <p>Threading: questions are answered and reports built on virtual threads of their own, never on the transport's
 * threads, so a report never delays delivery. State: the answers awaited, by request id.
 */
public final class HangReports {
    private static final Logger LOG = LoggerFactory.getLogger(HangReports.class);
    /** How long one wave of questions waits for its answers. */
    static final Duration ANSWER_WAIT = Duration.ofSeconds(2);
    /** Waves of questions at most: the awaited ranks, the ranks they wait for, and so on. */
    static final int WAVES = 4;
    private static final AtomicLong REQUESTS = new AtomicLong(1);

    private final Transport transport;
    private final InboundRouter router;
    private final long afterNanos;
    private final Map<Long, CompletableFuture<Message.Status>> awaited = new ConcurrentHashMap<>();
    private volatile String lastReport;
    /** This process's point-to-point flight recorder, dumped with every hang report. */
    private final P2pRecorder p2p = new P2pRecorder();
    /** Blocking sends and probes in progress, reported by a watchdog. */
    private final BlockedCalls blocked;

    /**
     * @param afterNanos {@code hang.report.after}: how long an operation waits before it reports, 0 for never
     */
    public HangReports(Transport transport, InboundRouter router, long afterNanos) {
        this.transport = transport;
        this.router = router;
        this.afterNanos = afterNanos;
        this.blocked = new BlockedCalls(this, afterNanos);
    }

    /** {@code hang.report.after} in nanoseconds; 0 means no reports (questions are still answered). */
    public long afterNanos() {
        return afterNanos;
    }

    /** {@return this process's point-to-point flight recorder} */
    public P2pRecorder p2p() {
        return p2p;
    }

    /** {@return this process's blocking sends and probes in progress, which a watchdog reports} */
    public BlockedCalls blocked() {
        return blocked;
    }

    /** The last report this process logged, or null. */
    public String lastReport() {
        return lastReport;
    }

    /**
     * What this process is doing: each operation in progress, pending receive or idle communicator, separated by
     * "; "; adds the world ranks they wait for to {@code waitingFor}.
     */
    public String describeSelf(Set<Integer> waitingFor) {
        var lines = new ArrayList<String>();
        router.engine().describe(lines, waitingFor);
        router.mailbox().describe(lines, waitingFor);
        blocked.describe(lines, waitingFor);
        return lines.isEmpty() ? "idle (no operation posted yet)" : String.join("; ", lines);
    }

    /** A STATUS from world rank {@code peer}: answers a question, completes an awaited answer. Any thread. */
    public void onStatus(int peer, Message.Status status) {
        if (status.reply()) {
            CompletableFuture<Message.Status> f = awaited.remove(status.requestId());
            if (f != null) {
                f.complete(status);
            }
            return;
        }
        Thread.ofVirtual().name("nexar-status-answer-p" + peer).start(() -> {
            LogContext.set(transport.rank(), transport.worldSize());
            answer(peer, status.requestId());
        });
    }

    private void answer(int peer, long requestId) {
        var waitingFor = new TreeSet<Integer>();
        String text = truncate(describeSelf(waitingFor));
        int[] ranks = waitingFor.stream().mapToInt(Integer::intValue).toArray();
        try {
            transport.send(peer, Lane.CONTROL, new Message.Status(true, requestId, ranks, text),
                    Deadline.after(ANSWER_WAIT), new ErrorContext(Operation.DIAGNOSTICS, transport.rank(),
                            transport.worldSize(), -1, -1, -1, peer));
        } catch (NexarException e) {
            LOG.debug("rank {}: cannot answer rank {}'s status question: {}",
                    transport.rank(), peer, e.getMessage());
        }
    }

    /**
     * An operation of this process made no progress for {@link #afterNanos}: builds and logs a report on a virtual
     * thread, then hands it to {@code done}.
     *
     * @param doing what the operation is, for example {@code barrier #5 on communicator 0 (step 1 of 2)}
     * @param worldRanks the world ranks it waits for
     * @param recent lines to end the report with (this rank's flight recorder), or ""
     */
    public void stalled(String doing, int[] worldRanks, String recent, Consumer<String> done) {
        Thread.ofVirtual().name("nexar-hang-report").start(() -> {
            LogContext.set(transport.rank(), transport.worldSize());
            String sends = p2p.render("  ", 8);
            String report = report(doing, worldRanks) + recent + (sends.isEmpty() ? "" : "\n" + sends);
            lastReport = report;
            LOG.warn(report);
            done.accept(report);
        });
    }

    /** Asks, wave after wave, and renders the report. */
    String report(String doing, int[] worldRanks) {
        var answers = new LinkedHashMap<Integer, String>();
        var next = new TreeSet<Integer>();
        for (int r : worldRanks) {
            next.add(r);
        }
        next.remove(transport.rank());
        for (int wave = 0; wave < WAVES && !next.isEmpty(); wave++) {
            var asked = new LinkedHashMap<Integer, CompletableFuture<Message.Status>>();
            for (int r : next) {
                asked.put(r, ask(r));
            }
            next = new TreeSet<>();
            long end = System.nanoTime() + ANSWER_WAIT.toNanos();
            for (var e : asked.entrySet()) {
                Message.Status s = awaitAnswer(e.getValue(), end);
                if (s == null) {
                    answers.put(e.getKey(), "not reachable (no answer within " + ANSWER_WAIT.toSeconds() + " s)");
                    continue;
                }
                answers.put(e.getKey(), s.text());
                for (int w : s.waitingFor()) {
                    if (w != transport.rank() && !answers.containsKey(w) && !asked.containsKey(w)) {
                        next.add(w);
                    }
                }
            }
        }
        var sb = new StringBuilder("nexar hang report: world rank ").append(transport.rank()).append(" of ")
                .append(transport.worldSize()).append(" is in ").append(doing);
        for (var e : answers.entrySet()) {
            sb.append("\n  world rank ").append(e.getKey()).append(": ").append(e.getValue());
        }
        return sb.toString();
    }

    private CompletableFuture<Message.Status> ask(int worldRank) {
        long id = REQUESTS.getAndIncrement();
        var f = new CompletableFuture<Message.Status>();
        awaited.put(id, f);
        try {
            transport.send(worldRank, Lane.CONTROL, new Message.Status(false, id, new int[0], ""),
                    Deadline.after(ANSWER_WAIT), new ErrorContext(Operation.DIAGNOSTICS, transport.rank(),
                            transport.worldSize(), -1, -1, -1, worldRank));
        } catch (NexarException e) {
            awaited.remove(id);
            f.complete(null);
        }
        return f;
    }

    private Message.Status awaitAnswer(CompletableFuture<Message.Status> f, long endNanos) {
        try {
            return f.get(Math.max(0, endNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return null;
        } finally {
            f.complete(null); // no effect if answered; else a late answer finds nothing to complete
        }
    }

    /** {@code text} cut to fit a STATUS answer ({@link WireFormat#MAX_TEXT_BYTES} bytes of UTF-8). */
    static String truncate(String text) {
        if (text.getBytes(StandardCharsets.UTF_8).length <= WireFormat.MAX_TEXT_BYTES) {
            return text;
        }
        int end = Math.min(text.length(), WireFormat.MAX_TEXT_BYTES / 3 - 4);
        if (Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(0, end) + " ...";
    }

    /** Drops the answers still awaited (the process closes). */
    public void close() {
        blocked.close();
        awaited.values().forEach(f -> f.complete(null));
        awaited.clear();
    }
}
