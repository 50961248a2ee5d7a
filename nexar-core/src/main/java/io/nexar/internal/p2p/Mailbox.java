package io.nexar.internal.p2p;

import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.MessageSizeMismatchException;
import io.nexar.NexarException;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.HangReports;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Progress;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.Futures;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Point-to-point matching for one process: pairs inbound {@link Message.Data} chunks with posted receives by
 * (communicator, source, tag), in the sender's sequence order.
 *
 * <pre>
 *   inbound chunk ──▶ pair (comm, src): seqs arrived contiguously?  ──▶ channel (comm, src, tag)
 *                                                                     ├─ posted receives (FIFO)
 *                                                                     └─ unmatched messages by seq
 * </pre>
 *
 * <p>Ordering: a sender numbers its messages to each (receiver, communicator) 0, 1, 2, ... A message becomes
 * matchable once every lower-numbered message from that sender has started to arrive, so a receive takes the
 * oldest message of its tag even when lanes reorder messages (MPI's non-overtaking rule).
 *
 * <p>Memory: chunks of unmatched messages are copied into the unexpected store, bounded by {@code maxStoredBytes}.
 * A chunk that does not fit is refused ({@link Delivery#FULL}) and the transport retries later, except the first
 * chunk of the oldest missing message of a pair while later messages of the pair wait for it or a receive from that
 * sender is posted, so that concurrent senders and lanes cannot deadlock each other; the store therefore exceeds its
 * bound by at most one chunk per sender at a time. Once a receive is bound to a
 * message, its chunks go straight into the receive's buffer.
 *
 * <p>Threading: one lock guards all state; it is held while a chunk is copied into a user buffer (so a receive
 * that timed out never sees a late write) and never across I/O or a blocking wait on another object.
 */
public final class Mailbox implements InboundHandler {
    private final long maxStoredBytes;
    private final ReentrantLock lock = new ReentrantLock();
    /** Where a receive that waits longer than {@code hang.report.after} reports; null for none. */
    private volatile HangReports hangs;
    private final Condition changed = lock.newCondition();
    private final Map<PairKey, PairState> pairs = new HashMap<>();
    private final Map<ChannelKey, ArrayDeque<PendingReceive>> posted = new HashMap<>();
    private final Map<ChannelKey, TreeMap<Long, InboundMessage>> unmatched = new HashMap<>();
    private final Map<Integer, String> downPeers = new HashMap<>();
    /** Communicators closed on this process (sub-communicators; the world closes the whole mailbox). */
    private final Map<Integer, String> closedComms = new HashMap<>();
    private long storedBytes;
    private boolean closed;
    private String closedReason;
    /** Set by {@link #abortAll}: receives posted later fail at once with it. */
    private String abortedDetail;
    /** Who reads the transport while a receive waits (see {@link Progress}). */
    private volatile Progress progress = Progress.NONE;

    /** @param maxStoredBytes bound of the unexpected-message store (setting {@code unexpected.max.bytes}) */
    public Mailbox(long maxStoredBytes) {
        this.maxStoredBytes = maxStoredBytes;
    }

    /**
     * Receives the next message of (communicator, src, tag) into {@code buffer}, blocking until it is whole.
     * {@code src} is a world rank, also the context's peer (the world communicator).
     *
     * @return the number of bytes received
     */
    public long receive(int communicator, int src, int tag, MemorySegment buffer, Deadline deadline,
                        ErrorContext context) {
        return receiveFrom(communicator, src, tag, buffer, deadline, context.withPeer(src));
    }

    /**
     * Receives the next message of (communicator, world rank {@code worldSrc}, tag) into {@code buffer}. Messages are
     * matched by world rank; errors name {@code context}'s peer, the source in the communicator's numbering (and the
     * world rank when it differs).
     *
     * @return the number of bytes received
     */
    public long receiveFrom(int communicator, int worldSrc, int tag, MemorySegment buffer, Deadline deadline,
                            ErrorContext context) {
        var key = new ChannelKey(communicator, worldSrc, tag);
        var r = new PendingReceive(context, worldSrc, buffer);
        lock.lock();
        try {
            if (closed) {
                throw new CommunicatorClosedException(context, "failed: " + closedReason);
            }
            String gone = closedComms.get(communicator);
            if (gone != null) {
                throw new CommunicatorClosedException(context, "failed: " + gone);
            }
            if (abortedDetail != null) { // the communicator's own check may have run just before the abort
                throw new PeerFailedException(context, abortedDetail);
            }
            posted.computeIfAbsent(key, k -> new ArrayDeque<>()).add(r);
            tryMatch(key);
            String down = downPeers.get(worldSrc);
            if (down != null && !r.result.isDone() && (r.bound == null || !r.bound.complete())) {
                abandon(key, r);
                r.result.completeExceptionally(peerFailed(r, down));
            }
            changed.signalAll(); // a sender refused for lack of room may now be matched directly
        } finally {
            lock.unlock();
        }
        return await(key, r, deadline);
    }

    /** Receives poll {@code p} for their messages before they sleep. Set once, before any receive. */
    public void drivenBy(Progress p) {
        progress = Objects.requireNonNull(p, "progress");
    }

    private long await(ChannelKey key, PendingReceive r, Deadline deadline) {
        int src = r.context.peer();
        try {
            progress.pollUntil(Lane.P2P, r.result::isDone, deadline.deadlineNanos(), r.worldSrc);
            awaitOrReport(r, deadline);
            return r.result.get(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            lock.lock();
            try {
                if (!r.result.isDone()) {
                    String progress = r.bound == null ? ""
                            : " (received " + r.bound.receivedBytes + " of " + r.bound.totalBytes + " bytes)";
                    abandon(key, r);
                    String report = r.hangReport;
                    r.result.completeExceptionally(new OperationTimeoutException(r.context, deadline.timeout(),
                            "rank " + src + progress + (report == null ? "" : "; " + report)));
                }
            } finally {
                lock.unlock();
            }
            return await(key, r, deadline);
        } catch (InterruptedException e) {
            lock.lock();
            try {
                if (!r.result.isDone()) {
                    abandon(key, r);
                    r.result.completeExceptionally(new OperationCancelledException(r.context,
                            "was interrupted while waiting for rank " + src));
                }
            } finally {
                lock.unlock();
            }
            Thread.currentThread().interrupt();
            return Futures.join(r.result); // the OperationCancelledException itself, not a CompletionException
        } catch (ExecutionException e) {
            throw Futures.unwrap(e);
        }
    }

    /**
     * Waits for {@code r} until {@code hang.report.after} passed since it was posted, and then, if it is still not
     * done and its deadline is further away, starts a hang report (docs/failure-model.md "Hang reports").
     */
    private void awaitOrReport(PendingReceive r, Deadline deadline) throws InterruptedException, ExecutionException {
        var h = hangs;
        long after = h == null ? 0 : h.afterNanos();
        if (after <= 0) {
            return;
        }
        long toReport = r.postedNanos + after - System.nanoTime();
        if (toReport >= deadline.remainingNanos()) {
            return;
        }
        try {
            r.result.get(Math.max(0, toReport), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            var waiting = new TreeSet<Integer>();
            String doing;
            lock.lock();
            try {
                doing = describe(r, System.nanoTime(), waiting);
            } finally {
                lock.unlock();
            }
            h.stalled(doing, new int[] {r.worldSrc}, "", report -> r.hangReport = report);
        }
    }

    /** The hang reports this receive side reports to, or null. */
    public HangReports hangReports() {
        return hangs;
    }

    /** Receivers that wait longer than {@code hang.report.after} report through {@code h}. Set once. */
    public void reportsHangsTo(HangReports h) {
        hangs = h;
    }

    /** Lines describing the receives posted on this process, for a hang report; adds the world ranks they await. */
    public void describe(List<String> lines, Set<Integer> waitingFor) {
        lock.lock();
        try {
            long now = System.nanoTime();
            for (var q : posted.values()) {
                for (PendingReceive r : q) {
                    lines.add(describe(r, now, waitingFor));
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** For example {@code recv from rank 1 tag 31 on communicator 0 for 10.0 s}; under the lock. */
    private static String describe(PendingReceive r, long now, Set<Integer> waitingFor) {
        waitingFor.add(r.worldSrc);
        int src = r.context.peer();
        var sb = new StringBuilder("recv from rank ").append(src);
        if (src != r.worldSrc) {
            sb.append(" (world rank ").append(r.worldSrc).append(')');
        }
        sb.append(" tag ").append(r.context.tag()).append(" on communicator ").append(r.context.communicator());
        if (r.bound != null) {
            sb.append(" (received ").append(r.bound.receivedBytes).append(" of ").append(r.bound.totalBytes)
                    .append(" bytes)");
        }
        return sb.append(" for ").append(String.format(Locale.ROOT, "%.1f", (now - r.postedNanos) / 1e9))
                .append(" s").toString();
    }

    /** Detaches a receive that will not complete: unposts it, or drops the rest of the message it was bound to. */
    private void abandon(ChannelKey key, PendingReceive r) {
        InboundMessage m = r.bound;
        if (m == null) {
            var q = posted.get(key);
            if (q != null) {
                q.remove(r);
                if (q.isEmpty()) {
                    posted.remove(key);
                }
            }
            return;
        }
        m.boundTo = null;
        r.bound = null;
        m.discard = true;
        if (m.complete()) {
            pair(key.communicator, key.src).active.remove(m.seq);
        }
    }

    @Override
    public Delivery onMessage(int peer, Message message) {
        lock.lock();
        try {
            return switch (message) {
                case Message.Data d -> onData(peer, d);
                case Message.Goodbye g -> {
                    markDown(peer, g.reason().describe(g.detail()));
                    yield Delivery.ACCEPTED;
                }
                case Message.Heartbeat h -> Delivery.ACCEPTED;
                case Message.Hello h -> Delivery.ACCEPTED;
                // enrolment belongs to the seed's TLS connection only; on a peer link it is a protocol violation
                case io.nexar.internal.protocol.EnrolmentMessage e -> throw new ProtocolException(
                        ErrorContext.of(io.nexar.Operation.DECODE).withPeer(peer), e.type() + " from rank " + peer
                                + " on a peer link: enrolment messages travel only on the seed's connection");
                // collective traffic goes to the collective engine (see InboundRouter); nothing else is for us
                default -> Delivery.ACCEPTED;
            };
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean deliverWaiting(int peer, Message message, long deadlineNanos) throws InterruptedException {
        lock.lock();
        try {
            while (onMessage(peer, message) == Delivery.FULL) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void onPeerDown(int peer, String why, Throwable cause) {
        lock.lock();
        try {
            markDown(peer, why);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Fails every pending receive, whatever its source (recovery policy abort, or this process excluded); later
     * receives are refused by the communicator.
     *
     * @param why completes "cannot complete: ...", for example {@code world rank 2 failed (...)}
     */
    public void abortAll(String why) {
        lock.lock();
        try {
            String detail = "cannot complete: " + why;
            abortedDetail = detail;
            failReceives((comm, src) -> true, r -> new PeerFailedException(r.context, detail));
        } finally {
            lock.unlock();
        }
    }

    /** Fails every pending receive and refuses new ones. Idempotent. */
    public void close(String reason) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            closedReason = reason;
            for (var q : posted.values()) {
                for (PendingReceive r : q) {
                    r.result.completeExceptionally(new CommunicatorClosedException(r.context, "failed: " + reason));
                }
            }
            for (PairState p : pairs.values()) {
                for (InboundMessage m : p.active.values()) {
                    if (m.boundTo != null) {
                        m.boundTo.result.completeExceptionally(
                                new CommunicatorClosedException(m.boundTo.context, "failed: " + reason));
                    }
                }
            }
            posted.clear();
            unmatched.clear();
            pairs.clear();
            storedBytes = 0;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes one communicator here: fails its pending receives, drops what it holds and refuses its new receives and
     * messages. Other communicators are untouched. Idempotent.
     */
    public void closeCommunicator(int communicator, String reason) {
        lock.lock();
        try {
            if (closed || closedComms.putIfAbsent(communicator, reason) != null) {
                return;
            }
            for (var it = posted.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                if (e.getKey().communicator == communicator) {
                    for (PendingReceive r : e.getValue()) {
                        r.result.completeExceptionally(new CommunicatorClosedException(r.context, "failed: " + reason));
                    }
                    it.remove();
                }
            }
            for (var it = pairs.entrySet().iterator(); it.hasNext(); ) {
                var p = it.next();
                if (p.getKey().communicator != communicator) {
                    continue;
                }
                for (InboundMessage m : p.getValue().active.values()) {
                    if (m.boundTo != null) {
                        m.boundTo.result.completeExceptionally(
                                new CommunicatorClosedException(m.boundTo.context, "failed: " + reason));
                    }
                    releaseStored(m);
                }
                it.remove();
            }
            unmatched.keySet().removeIf(k -> k.communicator == communicator);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Bytes currently held in the unexpected store. */
    public long storedBytes() {
        lock.lock();
        try {
            return storedBytes;
        } finally {
            lock.unlock();
        }
    }

    private Delivery onData(int peer, Message.Data d) {
        if (closed || closedComms.containsKey(d.communicator())) {
            return Delivery.ACCEPTED; // dropped: nobody will ever receive it
        }
        PairState pair = pair(d.communicator(), peer);
        long len = d.payload().byteSize();
        InboundMessage m = pair.active.get(d.messageSeq());
        boolean first = m == null;
        if (first) {
            if (d.messageSeq() < pair.contiguous || pair.ahead.contains(d.messageSeq())) {
                throw protocol(peer, "sent message " + d.messageSeq() + " of comm " + d.communicator()
                        + " again (or a chunk after its end)");
            }
            if (d.offset() != 0) {
                throw protocol(peer, "started message " + d.messageSeq() + " at offset " + d.offset());
            }
            if (len > 0 && !fits(len) && !neededNow(pair, d, peer)) {
                return Delivery.FULL;
            }
            m = new InboundMessage(d.messageSeq(), d.tag(), d.totalBytes());
        } else {
            if (d.totalBytes() != m.totalBytes || d.tag() != m.tag) {
                throw protocol(peer, "changed the size or tag of message " + m.seq + " mid-way");
            }
            if (m.boundTo == null && !m.discard && len > 0 && !fits(len)) {
                return Delivery.FULL;
            }
        }
        if (d.offset() < 0 || d.offset() > m.totalBytes - len || m.receivedBytes + len > m.totalBytes) {
            throw protocol(peer, "sent bytes [" + d.offset() + ", " + (d.offset() + len) + ") of message " + m.seq
                    + " of " + m.totalBytes + " bytes");
        }
        var key = new ChannelKey(d.communicator(), peer, d.tag());
        if (first) {
            pair.active.put(m.seq, m);
            unmatched.computeIfAbsent(key, k -> new TreeMap<>()).put(m.seq, m);
        }
        accept(m, d.offset(), d.payload());
        if (first) {
            arrived(pair, m.seq, key);
        } else {
            finishIfComplete(pair, m);
        }
        return Delivery.ACCEPTED;
    }

    /**
     * True if the first chunk of {@code d}, which does not fit, must be taken anyway: it is the oldest missing
     * message of the pair and something waits for it, either later messages that already arrived (they cannot match
     * before it) or a posted receive from that sender (which may need it, or a message after it). A pair whose
     * messages arrive in order and are not being received is refused (before, every in-order message was "the oldest
     * missing one" and the store grew without bound).
     */
    private boolean neededNow(PairState pair, Message.Data d, int peer) {
        if (d.messageSeq() != pair.contiguous) {
            return false;
        }
        if (!pair.ahead.isEmpty()) {
            return true;
        }
        for (var e : posted.entrySet()) {
            ChannelKey k = e.getKey();
            if (k.communicator == d.communicator() && k.src == peer && !e.getValue().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private boolean fits(long len) {
        return storedBytes == 0 || storedBytes + len <= maxStoredBytes;
    }

    private void accept(InboundMessage m, long offset, MemorySegment payload) {
        long len = payload.byteSize();
        m.receivedBytes += len;
        if (m.discard || len == 0) {
            return;
        }
        if (m.boundTo != null) {
            MemorySegment.copy(payload, 0, m.boundTo.buffer, offset, len);
        } else {
            m.stored.add(new InboundMessage.StoredChunk(offset, payload.toArray(
                    java.lang.foreign.ValueLayout.JAVA_BYTE)));
            m.storedBytes += len;
            storedBytes += len;
        }
    }

    /** Records the arrival of a message's first chunk and matches what became matchable. */
    private void arrived(PairState pair, long seq, ChannelKey key) {
        if (seq != pair.contiguous) {
            pair.ahead.add(seq);
            return;
        }
        List<ChannelKey> touched = new ArrayList<>(1);
        touched.add(key);
        pair.contiguous++;
        while (!pair.ahead.isEmpty() && pair.ahead.first() == pair.contiguous) {
            InboundMessage now = pair.active.get(pair.ahead.pollFirst());
            if (now != null) {
                touched.add(new ChannelKey(key.communicator, key.src, now.tag));
            }
            pair.contiguous++;
        }
        for (ChannelKey k : touched) {
            tryMatch(k);
        }
    }

    /** Binds posted receives of {@code key} to its matchable messages, oldest first. */
    private void tryMatch(ChannelKey key) {
        var q = posted.get(key);
        var u = unmatched.get(key);
        if (q == null || u == null) {
            return;
        }
        PairState pair = pair(key.communicator, key.src);
        while (!q.isEmpty() && !u.isEmpty() && u.firstKey() < pair.contiguous) {
            bind(q.poll(), u.pollFirstEntry().getValue(), pair);
        }
        if (q.isEmpty()) {
            posted.remove(key);
        }
        if (u.isEmpty()) {
            unmatched.remove(key);
        }
    }

    private void bind(PendingReceive r, InboundMessage m, PairState pair) {
        releaseStored(m);
        if (m.totalBytes > r.buffer.byteSize()) {
            m.discard = true;
            m.stored.clear();
            r.result.completeExceptionally(new MessageSizeMismatchException(r.context, m.totalBytes,
                    r.buffer.byteSize()));
            finishIfComplete(pair, m);
            return;
        }
        for (InboundMessage.StoredChunk c : m.stored) {
            MemorySegment.copy(MemorySegment.ofArray(c.bytes()), 0, r.buffer, c.offset(), c.bytes().length);
        }
        m.stored.clear();
        m.boundTo = r;
        r.bound = m;
        finishIfComplete(pair, m);
        String down = downPeers.get(r.worldSrc);
        if (down != null && !m.complete()) {
            abandon(new ChannelKey(r.context.communicator(), r.worldSrc, r.context.tag()), r);
            r.result.completeExceptionally(peerFailed(r, down));
        }
    }

    private void releaseStored(InboundMessage m) {
        if (m.storedBytes > 0) {
            storedBytes -= m.storedBytes;
            m.storedBytes = 0;
            changed.signalAll();
        }
    }

    private void finishIfComplete(PairState pair, InboundMessage m) {
        if (!m.complete()) {
            return;
        }
        if (m.boundTo != null) {
            PendingReceive r = m.boundTo;
            m.boundTo = null;
            r.bound = null;
            pair.active.remove(m.seq);
            r.result.complete(m.totalBytes);
        } else if (m.discard) {
            pair.active.remove(m.seq);
        }
    }

    private void markDown(int peer, String why) {
        if (downPeers.putIfAbsent(peer, why) != null) {
            return;
        }
        failReceives((comm, src) -> src == peer, r -> peerFailed(r, why));
    }

    /**
     * Fails the pending receives of {@code communicator}, which its members abandoned (an automatic recovery rebuilt
     * it under a new id); its later messages are never matched.
     *
     * @param why completes "cannot complete: ..."
     */
    public void failCommunicator(int communicator, String why) {
        lock.lock();
        try {
            failReceives((comm, src) -> comm == communicator,
                    r -> new PeerFailedException(r.context, "cannot complete: " + why));
        } finally {
            lock.unlock();
        }
    }

    /** Selects receives by (communicator, world source rank). */
    @FunctionalInterface
    private interface ReceiveFilter {
        boolean test(int communicator, int src);
    }

    /**
     * Fails the pending receives that {@code sources} accepts with {@code error}: those still
     * waiting to be matched, and those bound to a message that is not complete (the rest of that message is
     * dropped, never written into the caller's buffer). Under the lock.
     */
    private void failReceives(ReceiveFilter sources,
                              java.util.function.Function<PendingReceive, ? extends RuntimeException> error) {
        for (Iterator<Map.Entry<ChannelKey, ArrayDeque<PendingReceive>>> it = posted.entrySet().iterator();
             it.hasNext(); ) {
            var e = it.next();
            if (!sources.test(e.getKey().communicator, e.getKey().src)) {
                continue;
            }
            for (PendingReceive r : e.getValue()) {
                r.result.completeExceptionally(error.apply(r));
            }
            it.remove();
        }
        for (var p : pairs.entrySet()) {
            if (!sources.test(p.getKey().communicator, p.getKey().src)) {
                continue;
            }
            for (InboundMessage m : p.getValue().active.values()) {
                if (m.boundTo != null && !m.complete()) {
                    PendingReceive r = m.boundTo;
                    m.boundTo = null;
                    r.bound = null;
                    m.discard = true;
                    r.result.completeExceptionally(error.apply(r));
                }
            }
        }
        changed.signalAll();
    }

    /** The receive's source failed: named in the communicator's numbering, plus its world rank if different. */
    private static PeerFailedException peerFailed(PendingReceive r, String why) {
        int peer = r.context.peer();
        String world = peer == r.worldSrc ? "" : " (world rank " + r.worldSrc + ")";
        return new PeerFailedException(r.context, "cannot complete: rank " + peer + world + " " + why);
    }

    private static ProtocolException protocol(int peer, String what) {
        return new ProtocolException(ErrorContext.of(io.nexar.Operation.DECODE).withPeer(peer),
                "failed: rank " + peer + " " + what);
    }

    private PairState pair(int communicator, int src) {
        return pairs.computeIfAbsent(new PairKey(communicator, src), k -> new PairState());
    }

    private record PairKey(int communicator, int src) {
    }

    private record ChannelKey(int communicator, int src, int tag) {
    }

    /** Arrival bookkeeping of one (communicator, sender). */
    private static final class PairState {
        /** Every message with a lower sequence number has started to arrive. */
        long contiguous;
        /** Sequence numbers above {@link #contiguous} that have started to arrive. */
        final TreeSet<Long> ahead = new TreeSet<>();
        /** Messages still arriving or still unmatched, by sequence number. */
        final Map<Long, InboundMessage> active = new HashMap<>();
    }
}
