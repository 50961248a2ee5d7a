package io.nexar.transport.quic.bulk;

import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.Progress;
import io.nexar.transport.quic.security.PeerVerifier;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * What the bulk lanes need from the transport they serve: who this rank is, where received messages go, the limits
 * and checks of the cluster, the peers, and a timer. The QUIC transport implements it; this package never sees the
 * transport itself, so the dependency points one way (transport to bulk lane).
 *
 * <p>Threading: every method may be called from any thread (reader, writer, accept and sender threads).
 */
public interface BulkHost {
    /** This rank. */
    int rank();

    /** The ranks of the world now (it grows when a running cluster admits workers). */
    int worldSize();

    /** True once this transport is closing: failures are then expected and not reported. */
    boolean isClosing();

    /** Where received messages go, and who hears of a peer that is down. */
    InboundHandler handler();

    /** Setting {@code max.frame.size}, in bytes: longer length prefixes are protocol errors. */
    long maxFrameBytes();

    /** Setting {@code heartbeat.timeout}: the longest pause within a frame being read. */
    Duration heartbeatTimeout();

    /** This rank's HELLO, the same as on its QUIC connections (a bulk lane's must match it). */
    Message.Hello hello();

    /** Checks a peer's certificate chain: the cluster CA, and the member it names. */
    PeerVerifier verifier();

    /**
     * Lets a waiting caller read its own lane's connections ({@link BulkConnection#tryPoll}); a sender waiting for its
     * socket reads its lane through it too.
     */
    Progress lanes();

    /** The peer of world rank {@code rank}, or null for this rank, an absent rank or one out of range. */
    BulkPeer peer(int rank);

    /** The member id the peer table names for {@code rank} (its certificate must name it). */
    String memberId(int rank);

    /** The rank the peer table gives member {@code memberId}; empty if it has none, or before the table is known. */
    OptionalInt rankOf(String memberId);

    /** A protocol error of {@code peer} (-1 while it is not identified yet), naming it. */
    ProtocolException protocolError(int peer, String what);

    /**
     * Runs {@code action} after {@code nanos} on one of the transport's timers (setup deadlines); at once if the
     * transport is stopping.
     */
    void schedule(Runnable action, long nanos);
}
