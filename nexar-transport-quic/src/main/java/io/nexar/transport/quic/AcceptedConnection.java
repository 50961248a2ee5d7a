package io.nexar.transport.quic;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.transport.Lane;
import java.security.cert.CertificateException;
import java.util.OptionalInt;

/**
 * A connection a lower rank dialled to this one. Its TLS handshake accepts any member of the cluster; once the
 * handshake is done and the peer table is known, the dialer's rank is looked up by the member id in its certificate,
 * and the connection is refused unless that rank is lower than this one and not yet connected. Lane streams that
 * arrive earlier wait unread. Event loop only.
 */
final class AcceptedConnection extends Connection {
    private boolean refusalRecorded;

    AcceptedConnection(QuicTransport transport) {
        super(transport);
    }

    @Override
    String expectedMember() {
        return null;
    }

    @Override
    void refusedInHandshake(String reason) {
        refusalRecorded = true;
        transport.recordRefusal("a connection from " + remote() + " was refused: " + reason);
    }

    @Override
    void closedUnidentified(String why) {
        if (!transport.isClosing() && !refusalRecorded && (closedByPeer || handshakeFailure != null)) {
            transport.recordRefusal("a connection from " + remote() + (closedByPeer ? " was closed by that peer,"
                    + " which " + why : " " + why));
        }
    }

    @Override
    boolean answersHello() {
        return true;
    }

    /** A stream the dialer opened arrived (acceptor); it is read once the dialer is verified. */
    void onAcceptedStream(QuicStreamChannel s) {
        long id = s.streamId();
        if ((id & 3) != 0 || (id >> 2) >= LANES) {
            closeWith(GoodbyeReason.PROTOCOL_ERROR.code(), "stream " + id + " is not one of the "
                    + LANES + " lane streams", "opened stream " + id + ", which is not a lane");
            return;
        }
        LaneStream ls = addLane(s, Lane.values()[(int) (id >> 2)]);
        PeerLink l = link;
        if (l != null) {
            ls.start(l.peer, transport.maxFrameBytes());
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        // the table as it is when the check runs: a growth may have added ranks since formation
        transport.whenTableKnown(channel.eventLoop(), t -> verifyAccepted(t == null ? null : transport.table()));
        ctx.fireChannelActive();
    }

    /** Identifies an accepted dialer by its certificate and the peer table. */
    private void verifyAccepted(PeerTable table) {
        if (isDone()) {
            return;
        }
        if (table == null) {
            closeWith(GoodbyeReason.CLOSE.code(), "rank " + transport.rank() + " is closing",
                    "closed before formation");
            return;
        }
        String member;
        try {
            member = transport.verifier().verify(channel.sslEngine().getSession(), null);
        } catch (CertificateException e) {
            refuseAccepted(e.getMessage());
            return;
        }
        OptionalInt rank = table.rankOf(member);
        int me = transport.rank();
        if (rank.isEmpty()) {
            refuseAccepted("its certificate names member " + member + ", which is not in the peer table");
        } else if (rank.getAsInt() >= me) {
            refuseAccepted("it is rank " + rank.getAsInt() + " (member " + member + "), which must not dial rank " + me
                    + ": the lower rank dials");
        } else if (transport.link(rank.getAsInt()) == null || !transport.link(rank.getAsInt()).attach(this)) {
            refuseAccepted("it is rank " + rank.getAsInt() + " (member " + member + "), which is already connected or"
                    + " down");
        } else {
            link = transport.link(rank.getAsInt());
            for (int i = 0; i < LANES; i++) {
                LaneStream ls = lanes.get(i);
                if (ls != null) {
                    ls.start(link.peer, transport.maxFrameBytes());
                }
            }
        }
    }

    private void refuseAccepted(String detail) {
        transport.recordRefusal("a connection from " + remote() + " was refused: " + detail);
        closeWith(Texts.REFUSED, "rank " + transport.rank() + " refused the connection from " + remote() + ": "
                + detail, "was refused: " + detail);
    }

}
