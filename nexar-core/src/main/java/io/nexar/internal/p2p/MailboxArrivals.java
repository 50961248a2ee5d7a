package io.nexar.internal.p2p;

import static io.nexar.internal.p2p.MailboxFailures.protocol;

import io.nexar.MessageSizeMismatchException;
import io.nexar.Status;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The arrival path of a {@link Mailbox}: a chunk checked against its pair's state ({@link PairState}), admitted to
 * the unexpected store or refused, the messages that became matchable matched in their sender's order
 * ({@link Matcher}), a receive bound to its message, the chunk copied into the receive's buffer or stored, and the
 * receive completed with its message's last byte. {@link MailboxClaims} uses the same steps for a chunk claimed when
 * its header arrived.
 *
 * <p>Stateless: every method here works on one communicator's shard ({@link MailShard}) and runs under its lock; the
 * mailbox's shared parts (the store's counts, the peers down) are thread-safe on their own.
 */
final class MailboxArrivals {
    private MailboxArrivals() {
    }

    /** {@link Mailbox#onMessage} of a DATA chunk, under the lock. */
    static Delivery onData(MailShard s, int peer, Message.Data d) {
        if (s.mailbox.closed || s.closed != null) {
            return Delivery.ACCEPTED; // dropped: nobody will ever receive it
        }
        PairState pair = s.pair(peer);
        long len = d.payload().byteSize();
        InboundMessage m = pair.active.get(d.messageSeq());
        boolean first = m == null;
        if (first) {
            if (d.messageSeq() < pair.contiguous || pair.ahead.contains(d.messageSeq())) {
                throw protocol(s.mailbox, d, peer, "sent message " + d.messageSeq() + " of comm " + d.communicator()
                        + " again (or a chunk after its end)");
            }
            if (d.offset() != 0) {
                throw protocol(s.mailbox, d, peer, "started message " + d.messageSeq() + " at offset " + d.offset());
            }
            if (!s.mailbox.store.admitsFirst(peer, len) && !neededNow(s, pair, d, peer)) {
                s.mailbox.store.refused(peer, len, 1);
                return Delivery.FULL;
            }
            m = new InboundMessage(peer, d.messageSeq(), d.tag(), d.totalBytes());
        } else {
            if (d.totalBytes() != m.totalBytes || d.tag() != m.tag) {
                throw protocol(s.mailbox, d, peer, "changed the size or tag of message " + m.seq + " mid-way");
            }
            if (m.boundTo == null && !m.discard && len > 0 && !s.mailbox.store.admitsMore(peer, len)) {
                s.mailbox.store.refused(peer, len, 0);
                return Delivery.FULL;
            }
        }
        if (d.offset() < 0 || d.offset() > m.totalBytes - len || m.receivedBytes + len > m.totalBytes) {
            throw protocol(s.mailbox, d, peer, "sent bytes [" + d.offset() + ", " + (d.offset() + len) + ") of message "
                    + m.seq + " of " + m.totalBytes + " bytes");
        }
        if (first) {
            started(s, pair, m, d.communicator()); // matched first: a posted receive takes the bytes straight away
        }
        accept(s, m, d.offset(), d.payload());
        finishIfComplete(pair, m);
        return Delivery.ACCEPTED;
    }

    /**
     * Keeps {@code m}, whose first chunk arrived, and matches it (and the messages after it that had arrived early)
     * if it became matchable: a posted receive that matches it is bound to it now.
     */
    private static void started(MailShard s, PairState pair, InboundMessage m, int communicator) {
        pair.active.put(m.seq, m);
        s.matcher.keep(communicator, m);
        s.mailbox.store.count(m); // released when a receive takes it or its communicator closes
        arrived(s, pair, m, communicator);
    }

    /**
     * {@link #started(MailShard, PairState, InboundMessage, int)} for the first chunk {@code d} from {@code peer},
     * checked by the caller: the new message.
     */
    static InboundMessage started(MailShard s, PairState pair, int peer, Message.Data d) {
        var m = new InboundMessage(peer, d.messageSeq(), d.tag(), d.totalBytes());
        started(s, pair, m, d.communicator());
        return m;
    }

    /**
     * True if the first chunk of {@code d}, which does not fit, must be taken anyway: it is the oldest missing
     * message of the pair and something waits for it, either later messages that already arrived (they cannot match
     * before it) or a posted receive from that sender (which may need it, or a message after it). A pair whose
     * messages arrive in order and are not being received is refused (before, every in-order message was "the oldest
     * missing one" and the store grew without bound).
     */
    private static boolean neededNow(MailShard s, PairState pair, Message.Data d, int peer) {
        if (d.messageSeq() != pair.contiguous) {
            return false;
        }
        if (!pair.ahead.isEmpty()) {
            return true;
        }
        for (int[] probe : s.probes) {
            if (probe[0] == PendingReceive.ANY || probe[0] == peer) { // the shard's probes are all of its communicator
                return true;
            }
        }
        return s.matcher.awaits(d.communicator(), peer);
    }

    private static void accept(MailShard s, InboundMessage m, long offset, MemorySegment payload) {
        long len = payload.byteSize();
        m.receivedBytes += len;
        if (m.discard || len == 0) {
            return;
        }
        if (m.boundTo != null) {
            Segments.copy(payload, 0, m.boundTo.buffer, offset, len);
        } else {
            m.stored.add(new InboundMessage.StoredChunk(offset, payload.toArray(
                    java.lang.foreign.ValueLayout.JAVA_BYTE)));
            s.mailbox.store.addBytes(m, len);
        }
    }

    /**
     * Records the arrival of a message's first chunk; the messages that became matchable (it, and those after it
     * that had arrived early) are matched in their sender's order.
     */
    private static void arrived(MailShard s, PairState pair, InboundMessage m, int communicator) {
        if (m.seq != pair.contiguous) {
            pair.ahead.add(m.seq);
            return;
        }
        List<InboundMessage> now = new ArrayList<>(1);
        now.add(m);
        pair.contiguous++;
        while (!pair.ahead.isEmpty() && pair.ahead.first() == pair.contiguous) {
            InboundMessage next = pair.active.get(pair.ahead.pollFirst());
            if (next != null) {
                now.add(next);
            }
            pair.contiguous++;
        }
        for (InboundMessage n : now) {
            if (n.boundTo == null && !n.discard) {
                PendingReceive r = s.matcher.matchable(communicator, n);
                if (r != null) {
                    bind(s, r, n, pair);
                }
            }
        }
        if (!s.probes.isEmpty()) {
            s.changed.signalAll();
        }
    }

    /** Binds {@code r} to {@code m}, which it takes: copies what is stored, or fails it on a size mismatch. */
    static void bind(MailShard s, PendingReceive r, InboundMessage m, PairState pair) {
        s.mailbox.store.release(m);
        if (m.totalBytes > r.buffer.byteSize()) {
            m.discard = true;
            m.stored.clear();
            r.result.completeExceptionally(new MessageSizeMismatchException(r.context, m.totalBytes,
                    r.buffer.byteSize()));
            finishIfComplete(pair, m);
            return;
        }
        for (InboundMessage.StoredChunk c : m.stored) {
            Segments.copy(MemorySegment.ofArray(c.bytes()), 0, r.buffer, c.offset(), c.bytes().length);
        }
        m.stored.clear();
        m.boundTo = r;
        r.bound = m;
        finishIfComplete(pair, m);
        String down = s.mailbox.downPeers.get(m.src);
        if (down != null && !m.complete()) {
            MailboxFailures.abandon(s, r);
            r.result.completeExceptionally(r.peerFailed(m.src, down));
        }
    }

    /** Completes the receive bound to {@code m} once every byte of it is in, or forgets a discarded {@code m}. */
    static void finishIfComplete(PairState pair, InboundMessage m) {
        if (!m.complete()) {
            return;
        }
        if (m.boundTo != null) {
            PendingReceive r = m.boundTo;
            m.boundTo = null;
            r.bound = null;
            pair.active.remove(m.seq);
            int src = r.worldSrc == PendingReceive.ANY ? r.rankOf(m.src) : r.context.peer();
            r.result.complete(new Status(src, m.tag, m.totalBytes));
        } else if (m.discard) {
            pair.active.remove(m.seq);
        }
    }
}
