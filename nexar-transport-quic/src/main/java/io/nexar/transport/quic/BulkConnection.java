package io.nexar.transport.quic;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;
import java.security.cert.CertificateException;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP bulk-lane connection, and the owner of its {@link LaneStream}. Event loop only, except {@link #isDone} and
 * {@link #link}.
 *
 * <pre>
 *  dialer (lower rank, its QUIC link ready)          acceptor
 *  TCP connect, TLS 1.3 both certificates      ───▶  chain to the cluster CA
 *  acceptor must be the dialled member               dialer's member must be a lower rank with a ready QUIC link
 *  HELLO (same incarnation as on QUIC)         ───▶  HELLO checked, answered: bulk lane attached
 *  HELLO checked: bulk lane attached           ◀───
 * </pre>
 *
 * <p>Anything that goes wrong before both Hellos: this pair keeps using QUIC ({@link #setUp} completes either way,
 * formation never fails because of the bulk lane). A protocol error or a failed write afterwards loses the peer,
 * like on QUIC: a message may be half-written, and nexar does not resend. A bulk lane that ends (its peer leaving)
 * counts for the leaving peer's drain, see {@link Connection#checkDrained()}.
 */
final class BulkConnection extends ChannelInboundHandlerAdapter implements LaneOwner {
    private static final Logger LOG = LoggerFactory.getLogger(BulkConnection.class);

    private final QuicTransport transport;
    private final PeerLink dialTarget;
    private final boolean tls;
    private final CompletableFuture<Void> setUp = new CompletableFuture<>();
    private Channel channel;
    private LaneStream lane;
    private volatile PeerLink link;
    private volatile boolean done;
    private boolean ready;
    private boolean goodbyeSeen;

    /**
     * @param dialTarget the link this rank dials, or null for an accepted connection
     * @param tls false for {@link BulkLaneOptions.Mode#TCP_PLAIN}: the peer is then identified by its Hello only
     */
    BulkConnection(QuicTransport transport, PeerLink dialTarget, boolean tls) {
        this.transport = transport;
        this.dialTarget = dialTarget;
        this.tls = tls;
    }

    /** The link this connection dials, or null for an accepted one. */
    PeerLink target() {
        return dialTarget;
    }

    /** Completes when the bulk lane is attached, or when this pair stays on QUIC. Never fails. */
    CompletableFuture<Void> setUp() {
        return setUp;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        lane = ctx.pipeline().get(LaneStream.class);
        channel.closeFuture().addListener(f -> {
            done = true;
            fallBack("closed its TCP connection during setup");
        });
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (!tls) {
            if (dialTarget != null) {
                attachTo(dialTarget);
            } else {
                lane.start(-1, transport.maxFrameBytes()); // identified by its Hello
            }
        }
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent e) {
            if (!e.isSuccess()) {
                fallBack("failed the TLS handshake: " + e.cause().getMessage());
                ctx.close();
            } else {
                identify(ctx.pipeline().get(SslHandler.class));
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** After the TLS handshake: whom did we reach, or who reached us? */
    private void identify(SslHandler ssl) {
        PeerTable table = transport.table();
        try {
            if (dialTarget != null) {
                transport.verifier().verify(ssl.engine().getSession(), table.get(dialTarget.peer).memberId());
                attachTo(dialTarget);
                return;
            }
            String member = transport.verifier().verify(ssl.engine().getSession(), null);
            OptionalInt rank = table == null ? OptionalInt.empty() : table.rankOf(member);
            if (rank.isEmpty() || rank.getAsInt() >= transport.rank()) {
                refuse("its certificate names member " + member + ", which is not a lower rank in the peer table");
                return;
            }
            attachTo(transport.link(rank.getAsInt()));
        } catch (CertificateException e) {
            refuse(e.getMessage());
        }
    }

    private void attachTo(PeerLink l) {
        String problem = l.isDown() ? "is down" : !l.isReady() ? "has no ready QUIC connection yet"
                : l.bulk() != null ? "has a bulk lane already" : null;
        if (problem != null) {
            refuse("rank " + l.peer + " " + problem);
            return;
        }
        link = l;
        lane.start(l.peer, transport.maxFrameBytes());
        if (dialTarget != null) {
            lane.writeNow(transport.hello());
        }
    }

    @Override
    public void onHello(LaneStream ls, Message first) {
        if (!(first instanceof Message.Hello h)) {
            throw protocolError("began its bulk lane with " + first.type() + " instead of HELLO");
        }
        if (link == null) { // plain TCP: the Hello names the dialer
            if (h.rank() < 0 || h.rank() >= transport.rank()) {
                throw protocolError("says in its bulk-lane HELLO that it is rank " + h.rank());
            }
            link = transport.link(h.rank());
        }
        if (h.rank() != link.peer || h.worldSize() != transport.worldSize() || h.incarnation() != link.incarnation()) {
            throw protocolError("sent a bulk-lane HELLO (rank " + h.rank() + ", world " + h.worldSize()
                    + ") that does not match its QUIC HELLO");
        }
        if (dialTarget == null) {
            ls.writeNow(transport.hello());
        }
        if (!link.attachBulk(ls)) {
            throw protocolError("opened a second bulk lane");
        }
        ready = true;
        LOG.debug("rank {}: bulk lane with rank {} ready ({})", transport.rank(), link.peer, tls ? "TLS" : "plain");
        setUp.complete(null);
    }

    private void refuse(String why) {
        fallBack("was refused: " + why);
        channel.close();
    }

    /** Setup failed: this pair keeps using QUIC. {@code why} completes "rank N ..." (any thread). */
    synchronized void fallBack(String why) {
        if (ready || setUp.isDone()) {
            return;
        }
        String who = dialTarget != null ? "the bulk lane of rank " + dialTarget.peer : "a bulk connection from "
                + (channel == null ? "?" : Texts.format(channel.remoteAddress()));
        if (!transport.isClosing()) {
            LOG.warn("rank {}: {} {}; large messages use QUIC instead", transport.rank(), who, why);
        }
        setUp.complete(null);
    }

    @Override
    public boolean isDone() {
        return done;
    }

    @Override
    public PeerLink link() {
        return link;
    }

    @Override
    public void onGoodbye(Message.Goodbye goodbye) {
        goodbyeSeen = true; // the lane's last frame before a normal end (the control lane carries the reason)
    }

    @Override
    public Delivery deliver(Message message) {
        return transport.handler().onMessage(link.peer, message);
    }

    @Override
    public ProtocolException protocolError(String what) {
        int peer = link == null ? -1 : link.peer;
        return new ProtocolException(ErrorContext.of(Operation.DECODE).withPeer(peer), "failed: rank " + peer + " "
                + what);
    }

    @Override
    public void laneFinished(LaneStream ls) {
        if (!ready) {
            fallBack("closed its bulk lane during setup");
            return;
        }
        link.bulkFinished();
        if (!goodbyeSeen && !transport.isClosing() && !link.isDown()) {
            // TCP ended without the Goodbye a leaving peer writes first: its process exited or was killed (the
            // kernel closed its socket). That counts at once; QUIC would only notice by the heartbeat timeout.
            lose("closed its bulk lane without saying goodbye (its process exited or was killed)", null);
            return;
        }
        Connection c = link.connection();
        if (c != null) {
            c.channel().eventLoop().execute(c::checkDrained);
        }
    }

    @Override
    public void laneFailed(LaneStream ls, RuntimeException e) {
        if (!ready) {
            fallBack("failed during setup: " + e.getMessage());
            channel.close();
            return;
        }
        lose(e instanceof ProtocolException ? "broke the protocol: " + e.getMessage()
                : "was disconnected after an error on its bulk lane: " + e, e);
    }

    @Override
    public void writeFailed(LaneStream ls, Throwable cause) {
        if (ready && !transport.isClosing() && !link.isDown()) {
            lose("was disconnected (writing its bulk lane failed: " + cause + ")", cause);
        }
    }

    /** After setup, the bulk lane failing loses the peer: a message may be half-written. */
    private void lose(String why, Throwable cause) {
        LOG.warn("rank {}: rank {} {}", transport.rank(), link.peer, why);
        link.down(why, cause, !transport.isClosing());
        channel.close();
        Connection c = link.connection();
        if (c != null) {
            c.channel().eventLoop().execute(() -> c.fail(why, cause));
        }
    }

    @Override
    public void noteSent() {
        // Keep-alive concerns the QUIC connection only.
    }
}
