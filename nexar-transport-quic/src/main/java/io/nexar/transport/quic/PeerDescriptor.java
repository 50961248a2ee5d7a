package io.nexar.transport.quic;

import io.nexar.internal.protocol.EnrolmentMessage.PeerTable;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.transport.Newcomer;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * How the QUIC transport describes a worker admitted into a running cluster ({@link Newcomer#descriptor()}): a
 * PEER_TABLE frame with its one entry (member id, QUIC and bulk addresses), so the bytes the members broadcast are
 * checked by the same codec as the seed's tables.
 */
final class PeerDescriptor {
    private static final long MAX_BYTES = 4096;

    private PeerDescriptor() {
    }

    static Newcomer encode(PeerInfo p) {
        Message m = new PeerTable(List.of(p.entry()));
        byte[] frame = new byte[Math.toIntExact(MessageCodec.encodedSize(m))];
        MessageCodec.encode(m, MemorySegment.ofArray(frame));
        return new Newcomer(p.rank(), frame);
    }

    /**
     * @throws io.nexar.ProtocolException if the bytes are not one valid entry
     * @throws IllegalArgumentException if the entry's rank is not the newcomer's
     */
    static PeerInfo decode(Newcomer n) {
        Message m = MessageCodec.decode(-1, MemorySegment.ofArray(n.descriptor()), MAX_BYTES);
        if (!(m instanceof PeerTable t) || t.entries().size() != 1 || t.entries().getFirst().rank() != n.worldRank()) {
            throw new IllegalArgumentException("the descriptor of world rank " + n.worldRank() + " is " + m);
        }
        return PeerInfo.of(t.entries().getFirst());
    }
}
