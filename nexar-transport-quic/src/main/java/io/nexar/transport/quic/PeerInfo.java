package io.nexar.transport.quic;

import io.nexar.internal.protocol.EnrolmentMessage.PeerTable;
import java.net.InetSocketAddress;

/**
 * One entry of the peer table that the seed hands every member: where a rank listens and who it must be.
 *
 * @param rank the rank
 * @param memberId the identity its certificate must name
 * @param quicAddress its QUIC (UDP) listen address
 * @param bulkAddress its TCP bulk-lane listen address, or null if it has none
 */
public record PeerInfo(int rank, String memberId, InetSocketAddress quicAddress, InetSocketAddress bulkAddress) {

    /** The peer of a peer-table entry as it travels on the wire. */
    public static PeerInfo of(PeerTable.Entry e) {
        return new PeerInfo(e.rank(), e.memberId(), e.quicAddress(), e.bulkAddress());
    }

    /** This peer as a peer-table entry on the wire. */
    public PeerTable.Entry entry() {
        return new PeerTable.Entry(rank, memberId, quicAddress, bulkAddress);
    }
}
