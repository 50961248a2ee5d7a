package io.nexar.transport.quic.bulk;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.security.cert.CertificateException;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The setup of a {@link BulkConnection}, on its reader thread: the dial (dialer only), the TLS handshake, the
 * identity checks and the exchange of Hellos. Anything refused here leaves the pair on QUIC: {@link #run} says why
 * ({@link BulkConnection#fallBack}), closes the socket and returns false.
 *
 * <ul>
 *   <li>The dialer's peer (the acceptor) must be the dialled member, with a ready QUIC link.
 *   <li>The acceptor's peer (the dialer) must be a lower rank with a ready QUIC link: named by its certificate, or
 *       for plain TCP by its Hello.
 *   <li>The Hello must name the same rank, world size and incarnation as the peer's QUIC Hello.
 * </ul>
 */
final class BulkSetup {
    private final BulkConnection owner;
    private final BulkHost host;
    private final BulkSocket socket;
    private final BulkPeer dialTarget;
    private final BulkReader reader;
    private final BulkWriter writer;
    private final SocketChannel channel;
    private final InetSocketAddress dialAddress;
    private final Deadline deadline;

    /**
     * @param channel the socket: not yet connected if dialled ({@code dialAddress} its peer's bulk address), accepted
     *                otherwise
     * @param deadline when the setup must be done (the connection's timer falls back then)
     */
    BulkSetup(BulkConnection owner, BulkReader reader, BulkWriter writer, SocketChannel channel,
              InetSocketAddress dialAddress, Deadline deadline) {
        this.owner = owner;
        this.host = owner.host();
        this.socket = owner.socket();
        this.dialTarget = owner.dialTarget();
        this.reader = reader;
        this.writer = writer;
        this.channel = channel;
        this.dialAddress = dialAddress;
        this.deadline = deadline;
    }

    /**
     * Sets the connection up. True once the bulk lane is attached; false if this pair stays on QUIC (already said, the
     * socket closed). Throws on an I/O or protocol error, which the caller reports.
     */
    boolean run() throws IOException, InterruptedException {
        if (dialTarget != null) {
            int millis = Math.clamp(TimeUnit.NANOSECONDS.toMillis(deadline.remainingNanos()), 1, Integer.MAX_VALUE);
            try {
                channel.socket().connect(dialAddress, millis);
            } catch (IOException e) {
                owner.fallBack("could not be reached at " + Addresses.format(dialAddress) + " (" + e + ")");
                owner.closeSocket();
                return false;
            }
        }
        socket.handshake();
        if (!identify()) {
            return false;
        }
        if (dialTarget != null) {
            writer.writeHello(host.hello(), laneCode(owner.lane()));
        }
        Message first = reader.readHello();
        if (first == null) {
            // an accepted plain-TCP connection that ended before its Hello named it: a formation probe or a scan
            owner.fallBack(owner.link() == null && dialTarget == null ? null : "closed its bulk lane during setup");
            owner.closeSocket();
            return false;
        }
        return onHello(first);
    }

    /** After the TLS handshake: whom did we reach, or who reached us? False if refused (the pair stays on QUIC). */
    private boolean identify() throws InterruptedException {
        if (!socket.tls()) {
            return dialTarget == null || attachable(dialTarget); // an accepted one is identified by its Hello
        }
        try {
            if (dialTarget != null) {
                host.verifier().verify(socket.session(), host.memberId(dialTarget.peer()));
                return attachable(dialTarget);
            }
            String member = host.verifier().verify(socket.session(), null);
            OptionalInt rank = host.rankOf(member);
            if (rank.isEmpty() || rank.getAsInt() >= host.rank()) {
                return refuse("its certificate names member " + member + ", which is not a lower rank in the peer"
                        + " table");
            }
            return attachable(host.peer(rank.getAsInt()));
        } catch (CertificateException e) {
            return refuse(e.getMessage());
        }
    }

    /** Checks that {@code l} can take a bulk lane, waiting (within the setup deadline) for its QUIC link. */
    private boolean attachable(BulkPeer l) throws InterruptedException {
        if (l == null) {
            return refuse("that rank is not a member of this cluster");
        }
        try {
            l.ready().get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // reported below
        }
        Lane lane = owner.lane(); // null for an accepted connection until the dialer's HELLO names it
        String problem = l.isDown() ? "is down" : !l.isReady() ? "has no ready QUIC connection"
                : lane != null && l.bulk(lane) != null ? "has a " + lane + " bulk connection already" : null;
        if (problem != null) {
            return refuse("rank " + l.peer() + " " + problem);
        }
        owner.identified(l);
        return true;
    }

    /** The peer's first frame. False if refused; throws on a protocol error. */
    private boolean onHello(Message first) throws IOException {
        if (!(first instanceof Message.Hello h)) {
            throw owner.protocolError("began its bulk lane with " + first.type() + " instead of HELLO");
        }
        Lane named = laneOf(reader.helloFlags());
        if (named == null || (dialTarget != null && named != owner.lane())) {
            throw owner.protocolError("sent a bulk-lane HELLO with flags " + String.format("0x%02x", reader.helloFlags())
                    + (dialTarget != null ? ", expected " + String.format("0x%02x", laneCode(owner.lane()))
                    + " (" + owner.lane() + ")" : ", expected 0x01 (P2P) or 0x02 (COLLECTIVE)"));
        }
        if (dialTarget == null) { // accepted: only now is the lane known, so check the link again for it
            owner.carries(named);
            BulkPeer claimed = owner.link(); // TLS: named by the dialer's certificate
            if (claimed == null) { // plain TCP: the Hello names the dialer
                if (h.rank() < 0 || h.rank() >= host.rank()) {
                    throw owner.protocolError("says in its bulk-lane HELLO that it is rank " + h.rank());
                }
                claimed = host.peer(h.rank());
            }
            try {
                if (!attachable(claimed)) {
                    return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return refuse("setup was interrupted");
            }
        }
        BulkPeer link = owner.link();
        if (h.rank() != link.peer() || h.incarnation() != link.incarnation()) {
            throw owner.protocolError("sent a bulk-lane HELLO (rank " + h.rank() + ", world " + h.worldSize()
                    + ") that does not match its QUIC HELLO");
        }
        if (dialTarget == null) {
            writer.writeHello(host.hello(), laneCode(named));
            Thread.currentThread().setName(owner.threadName("p" + link.peer(), "rx"));
        }
        socket.goNonBlocking();
        owner.attach();
        return true;
    }

    /** The code of a lane in a bulk-lane HELLO's flags byte (docs/protocol.md 8.1). */
    static int laneCode(Lane l) {
        return switch (l) {
            case P2P -> 1;
            case COLLECTIVE -> 2;
            default -> throw new IllegalArgumentException("no TCP connection carries lane " + l);
        };
    }

    /** The lane named by a bulk-lane HELLO's flags byte, or null if it names none. */
    static Lane laneOf(int code) {
        return switch (code) {
            case 1 -> Lane.P2P;
            case 2 -> Lane.COLLECTIVE;
            default -> null;
        };
    }

    private boolean refuse(String why) {
        owner.fallBack("was refused: " + why);
        owner.closeSocket();
        return false;
    }
}
