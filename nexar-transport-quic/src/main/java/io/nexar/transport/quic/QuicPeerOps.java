package io.nexar.transport.quic;

import io.nexar.CommunicatorClosedException;
import io.nexar.internal.transport.Newcomer;
import io.nexar.internal.util.Deadline;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a {@link QuicTransport} does to one peer's link besides sending to it: flushing its connection on the event
 * loop, excluding it for good (revoked identity, link down, connection closed), and the link offers with which
 * running members open links to each other (a recovery's bridges on a sparse topology).
 *
 * <p>Stateless: the transport owns every field these methods read (its links and peer table, its endpoint, its
 * closing flag, its verifier). None runs on the send or receive path.
 */
final class QuicPeerOps {
    private QuicPeerOps() {
    }

    /** {@link QuicTransport#flush}. */
    static void flush(QuicTransport t, int peer, Deadline deadline) {
        PeerLink[] all = t.links.all();
        if (peer < 0 || peer >= all.length || peer == t.rank || t.closing.get() || all[peer] == null
                || all[peer].isDown()) {
            return;
        }
        Connection c = all[peer].connection();
        QuicEndpoint e = t.endpoint;
        if (c == null || c.channel() == null || e == null || e.inEventLoop()) {
            return;
        }
        var flushed = new CompletableFuture<Void>();
        c.onLoop(() -> {
            c.channel().flush();
            flushed.complete(null);
        });
        try {
            flushed.get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException ignored) {
            // best effort: the caller goes on (the peer is slow or going down)
        } catch (InterruptedException ignored) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@link QuicTransport#exclude}. */
    static void exclude(QuicTransport t, int peer, String why) {
        PeerLink[] all = t.links.all();
        java.util.Objects.checkIndex(peer, all.length);
        PeerTable table = t.links.table();
        PeerInfo info = table == null || peer >= table.size() ? null : table.get(peer);
        if (info != null && peer != t.rank) {
            t.verifier().revoke(info.memberId(), "rank " + peer + " " + why);
        }
        PeerLink l = all[peer];
        if (l == null) {
            return;
        }
        l.down(why, null, !t.closing.get());
        Connection c = l.connection();
        if (c != null) {
            int rank = t.rank;
            c.onLoop(() -> c.closeWith(Texts.DECLARED_FAILED, "rank " + rank + ": rank " + peer + " " + why, why));
        }
    }

    /** {@link QuicTransport#linkOffer}. */
    static byte[] linkOffer(QuicTransport t) {
        PeerTable table = t.links.table();
        PeerInfo own = table == null ? null : table.get(t.rank);
        if (own == null) {
            throw new CommunicatorClosedException(t.context(-1), "failed: cannot offer a link: the transport is not"
                    + " connected");
        }
        if (own.quicAddress() == null) {
            own = new PeerInfo(t.rank, own.memberId(), t.localAddress(), t.bulkAddress());
        }
        return PeerDescriptor.encode(own).descriptor();
    }

    /** {@link QuicTransport#linkMembers}: admits the peers not in the peer table yet. */
    static void linkMembers(QuicTransport t, List<Newcomer> peers, Runnable listed, Deadline deadline) {
        PeerTable table = t.links.table();
        List<Newcomer> fresh = peers.stream().filter(n -> table == null || n.worldRank() >= table.size()
                || table.get(n.worldRank()) == null).toList();
        QuicLifecycle.admit(t, fresh, 0, listed, deadline);
    }
}
