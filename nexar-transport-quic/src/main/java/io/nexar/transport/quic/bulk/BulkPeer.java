package io.nexar.transport.quic.bulk;

import io.nexar.ErrorContext;
import io.nexar.PeerFailedException;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.transport.Lane;
import java.util.concurrent.CompletableFuture;

/**
 * One peer rank as its bulk connections see it: its QUIC link (which a bulk lane must match and which comes first),
 * the bulk connection of each lane, and its liveness. The QUIC transport's per-peer link implements it.
 *
 * <p>Threading: every method may be called from any thread.
 */
public interface BulkPeer {
    /** The peer's world rank. */
    int peer();

    /** The peer's incarnation, from its QUIC HELLO (once ready): its bulk-lane HELLO must name the same. */
    long incarnation();

    /** Completes when the peer's QUIC connection is ready; fails if it cannot be formed or the peer went down. */
    CompletableFuture<Void> ready();

    /** True once the QUIC connection is ready and the peer is up. */
    boolean isReady();

    /** True once the peer is down. */
    boolean isDown();

    /**
     * Attaches the verified connection of {@code connection.lane()}; false if that lane has one already or the peer
     * is not ready (or down).
     */
    boolean attachBulk(BulkConnection connection);

    /** {@code lane}'s bulk connection, or null. */
    BulkConnection bulk(Lane lane);

    /** Something arrived from the peer: it is alive now (liveness is judged by what arrives, on every lane). */
    void noteReceived();

    /**
     * Throws if the peer is down.
     *
     * @throws PeerFailedException naming the peer and why it is down
     */
    void checkUp(ContextSource context);

    /**
     * Marks the peer down; the first reason wins (see the transport's link).
     *
     * @param why completes "rank N ..."
     * @param cause the underlying error, or null
     * @param report whether the inbound handler hears of it now
     */
    void down(String why, Throwable cause, boolean report);

    /** A bulk lane failed after setup: fails the peer's QUIC connection too, on its event loop (if it has one). */
    void quicFailed(String why, Throwable cause);

    /**
     * A bulk connection of the peer was read to its end: the QUIC connection looks, on its event loop, whether a
     * leaving peer is now drained (and then reports it).
     */
    void bulkInputEnded();
}
