package io.nexar.internal.p2p;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Arrival bookkeeping of one (communicator, sender) pair of a {@link Mailbox}: how far its messages have started to
 * arrive contiguously, which later ones arrived early, and the messages still arriving or still unmatched.
 *
 * <p>Owned by its communicator's shard ({@link MailShard}), which keeps one per sender's world rank; every field is
 * read and written only under the shard's lock.
 */
final class PairState {
    /** Every message with a lower sequence number has started to arrive. */
    long contiguous;
    /** Sequence numbers above {@link #contiguous} that have started to arrive. */
    final TreeSet<Long> ahead = new TreeSet<>();
    /** Messages still arriving or still unmatched, by sequence number. */
    final Map<Long, InboundMessage> active = new HashMap<>();

}
