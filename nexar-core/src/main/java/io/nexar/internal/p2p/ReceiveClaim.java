package io.nexar.internal.p2p;

import io.nexar.internal.transport.PayloadClaim;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;

/**
 * A large chunk of a point-to-point message, claimed when its header arrived ({@link Mailbox#claim}) and written by
 * the transport straight into the bound receive's buffer at the chunk's offset as the rest of its frame is read: the
 * chunk passes through no frame buffer and is not copied after it arrived, and its shard's lock is not held while
 * its bytes are written. Its bytes count as received at the claim (so a chunk over the same bytes, or past the end,
 * fails the mailbox's checks as before) and the receive completes once every claimed payload was read to its end.
 *
 * <p>A receive that ends early (cancelled, expired, failed, closed) first {@link MailboxClaims#stop stops} its
 * claims: an idle one at once, one that is writing a piece when that piece ends, and the receive's outcome is set only
 * then; the reader drops the rest of the payload. So nothing is written into the buffer after the receive ended.
 * The states are {@link PayloadClaim}'s, shared with the collective engine's claims.
 */
final class ReceiveClaim extends PayloadClaim {
    /** The shard of the message's communicator, whose lock guards it. */
    private final MailShard shard;
    /** The sender's world rank: its pair's state may be gone by the end (communicator or mailbox closed). */
    final int src;
    final InboundMessage message;
    final PendingReceive receive;
    /** Where the chunk starts in the message (and in the receive's buffer). */
    private final long at;
    /** The chunk's payload size. */
    final long len;
    private final MemorySegment direct;

    ReceiveClaim(MailShard shard, int src, InboundMessage message, PendingReceive receive, long at, long len) {
        this.shard = shard;
        this.src = src;
        this.message = message;
        this.receive = receive;
        this.at = at;
        this.len = len;
        this.direct = Segments.byteBufferViewable(receive.buffer) ? receive.buffer.asSlice(at, len) : null;
    }

    @Override
    public MemorySegment direct() {
        return direct;
    }

    @Override
    public int grain() {
        return 1;
    }

    @Override
    public void accept(MemorySegment piece, long from) {
        Segments.copy(piece, 0, receive.buffer, at + from, piece.byteSize());
    }

    @Override
    protected void release(boolean payloadEnded) {
        MailboxClaims.release(shard, this, payloadEnded);
    }
}
