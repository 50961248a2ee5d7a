package io.nexar.internal.p2p;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.PayloadClaim;
import io.nexar.internal.transport.PayloadSink;
import java.util.ArrayList;
import java.util.List;

/**
 * The large chunks of a {@link Mailbox} that a transport writes straight into their receive's buffer
 * ({@link ReceiveClaim}): claimed when a chunk's header arrived and a receive takes it now, released when its payload
 * was read, stopped when their receive ends early.
 *
 * <pre>
 *   header in ──▶ claim: the pair's next message with a posted receive that fits it   ──▶ bound now, then claimed
 *                        or a later chunk of a message bound to a receive              ──▶ claimed
 *                        anything else (no receive yet, discarded, wrong)              ──▶ null: whole frame, onMessage
 *   payload read (lock not held) ──▶ release: counted; the receive completes with its message's last byte
 * </pre>
 *
 * <p>Stateless: every method works on one communicator's shard ({@link MailShard}), under its lock; a receive keeps its
 * live claims ({@link PendingReceive#claims}). The chunk's bytes count as received when it is claimed, so every check
 * of the whole-frame path (offsets and sizes, repeated sequence numbers, size mismatch, closed communicator, peer
 * down) holds for the chunks after it; a chunk that would fail one is never claimed and fails it on that path.
 */
final class MailboxClaims {
    private MailboxClaims() {
    }

    /** {@link Mailbox#claim}. */
    static PayloadSink claim(Mailbox mb, int peer, Message.Data h, long len) {
        MailShard s = mb.shards.get(h.communicator());
        if (s == null) {
            return null; // no receive of it was ever posted here: nothing can take it now
        }
        s.lock.lock();
        try {
            if (mb.closed || s.closed != null || mb.downPeers.containsKey(peer)) {
                return null;
            }
            PairState pair = s.pairs.get(peer);
            InboundMessage m = pair == null ? null : pair.active.get(h.messageSeq());
            if (m == null) {
                if (!bindsNow(s, pair, peer, h)) {
                    return null;
                }
                pair = s.pair(peer);
                m = MailboxArrivals.started(s, pair, peer, h); // matched at once: bound to the receive bindsNow found
            }
            if (m.boundTo == null || h.totalBytes() != m.totalBytes || h.tag() != m.tag
                    || h.offset() > m.totalBytes - len || m.receivedBytes + len > m.totalBytes) {
                return null; // stored, dropped, or a violation the whole-frame path reports
            }
            m.receivedBytes += len;
            m.pendingBytes += len;
            PendingReceive r = m.boundTo;
            var c = new ReceiveClaim(s, peer, m, r, h.offset(), len);
            if (r.claims == null) {
                r.claims = new ArrayList<>(2);
            }
            r.claims.add(c);
            return c;
        } finally {
            s.lock.unlock();
        }
    }

    /**
     * True if the first chunk {@code h} from {@code peer} would be bound to a receive as it arrives: it starts the
     * pair's next message (which thus becomes matchable) and a posted receive takes it, with room for all of it
     * (otherwise the whole-frame path fails that receive with a size mismatch).
     */
    private static boolean bindsNow(MailShard s, PairState pair, int peer, Message.Data h) {
        if (h.messageSeq() != (pair == null ? 0 : pair.contiguous) || h.offset() != 0) {
            return false;
        }
        PendingReceive r = s.matcher.firstPosted(h.communicator(), peer, h.tag());
        return r != null && h.totalBytes() <= r.buffer.byteSize();
    }

    /**
     * The reader is done with {@code c} ({@link PayloadClaim#release}): it no longer writes, so a receive that ends
     * early may return; after the payload's end ({@code payloadEnded}) its bytes count, which completes the receive
     * with its message's last byte. A claim whose lane failed leaves its message incomplete (the peer is reported
     * down, which fails the receive).
     */
    static void release(MailShard s, ReceiveClaim c, boolean payloadEnded) {
        s.lock.lock();
        try {
            c.settle(payloadEnded);
            List<ReceiveClaim> live = c.receive.claims;
            if (live != null && live.remove(c)) {
                s.changed.signalAll(); // a receive ending early may wait for this claim
            }
            if (!payloadEnded) {
                return;
            }
            InboundMessage m = c.message;
            m.pendingBytes -= c.len;
            PairState pair = s.pairs.get(c.src);
            if (pair != null && pair.active.get(m.seq) == m) {
                MailboxArrivals.finishIfComplete(pair, m); // completes the receive, or forgets a discarded message
            }
        } finally {
            s.lock.unlock();
        }
    }

    /**
     * Under the lock, for a receive that ends early and was detached from its message (so no new claim is made for
     * it): stops its claims and waits (lock released) until none writes into its buffer. Set its outcome only after.
     */
    static void stop(MailShard s, PendingReceive r) {
        List<ReceiveClaim> live = r.claims;
        if (live == null) {
            return;
        }
        live.removeIf(PayloadClaim::cancel); // idle: stopped at once; a writing one releases itself after its piece
        while (!live.isEmpty()) {
            s.changed.awaitUninterruptibly();
        }
    }
}
