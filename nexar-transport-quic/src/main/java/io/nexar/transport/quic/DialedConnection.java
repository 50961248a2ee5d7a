package io.nexar.transport.quic;

import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.transport.Lane;
import io.nexar.transport.quic.bulk.Addresses;
import java.security.cert.CertificateException;

/**
 * A connection this rank dials to a higher rank. Its TLS handshake already refuses an acceptor whose certificate
 * does not name the member of the dialled peer-table entry ({@link QuicCodecs}); once connected it opens the four
 * lane streams in order (stream id {@code 4 * lane}) and says Hello on each. Event loop only.
 */
final class DialedConnection extends Connection {
    private final PeerLink target;

    DialedConnection(QuicTransport transport, PeerLink target) {
        super(transport);
        this.target = target;
    }

    @Override
    String expectedMember() {
        return transport.table().get(target.peer).memberId();
    }

    @Override
    void refusedInHandshake(String reason) {
        target.failFormation("at " + Addresses.format(transport.table().get(target.peer).quicAddress())
                + " presented an unacceptable certificate: " + reason);
    }

    @Override
    void closedUnidentified(String why) {
        target.failFormation("at " + remote() + " " + why);
    }

    @Override
    boolean answersHello() {
        return false;
    }

    /**
     * The dial completed its TLS handshake, whose trust manager already checked the acceptor's identity: check it
     * once more on the session (defence in depth), then open the lanes.
     */
    void onDialed() {
        try {
            transport.verifier().verify(channel.sslEngine().getSession(), expectedMember());
        } catch (CertificateException e) {
            refusedInHandshake(e.getMessage());
            closeWith(Texts.REFUSED, "rank " + transport.rank() + " refuses the certificate of the peer at this"
                    + " address: " + e.getMessage(), null);
            return;
        }
        if (!target.attach(this)) {
            closeWith(GoodbyeReason.CLOSE.code(), "rank " + target.peer + " is already connected", null);
            return;
        }
        link = target;
        openLane(0);
    }

    private void openLane(int index) {
        Lane lane = Lane.values()[index];
        channel.createStream(QuicStreamType.BIDIRECTIONAL, new ChannelInitializer<QuicStreamChannel>() {
            @Override
            protected void initChannel(QuicStreamChannel s) {
                addLane(s, lane);
            }
        }).addListener(f -> {
            if (!f.isSuccess()) {
                fail("could not open lane " + lane + ": " + f.cause(), f.cause());
                return;
            }
            LaneStream ls = lanes.get(index);
            long id = ls == null ? -1 : ls.channel().streamId();
            if (id != 4L * index) {
                fail("lane " + lane + " got stream id " + id + " instead of " + 4L * index, null);
                return;
            }
            ls.start(link.peer, transport.maxFrameBytes());
            ls.writeNow(transport.hello());
            if (index + 1 < LANES) {
                openLane(index + 1);
            }
        });
    }
}
