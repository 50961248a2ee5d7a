package io.nexar.transport.quic;

import io.netty.channel.EventLoop;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Progress;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.BulkConnection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The peers of one {@link QuicTransport}: a {@link PeerLink} per world rank (null for this rank and for ranks without
 * a link: absent, or not neighbours in a sparse topology), the peer table once {@code connect} gave it, and the
 * connection attempts that were refused.
 *
 * <p>As a {@link Progress}, it lets a thread that waits for a message read its own lane's TCP connections
 * ({@link BulkConnection#tryPoll}) for up to {@code poll.window} before their reader threads take over, so a small
 * message goes from the socket to its receive without a thread hand-off.
 *
 * <p>Threading: the link array and the table are replaced whole (never changed in place once connected) by
 * {@link #keepListed}, {@link #grow} and {@link #publish}, which the transport calls under its own monitor; everyone
 * else reads them without a lock. The links are replaced before the table, so whoever finds a rank in the table finds
 * its link.
 */
final class PeerLinks implements Progress {
    private final int rank;
    private final InboundHandler handler;
    private final long bulkThreshold;
    /** Setting {@code poll.window}: how long a waiting caller reads the TCP lanes itself (0 without TCP lanes). */
    private final long pollNanos;
    private volatile PeerLink[] links;
    private volatile PeerTable table;
    private final CompletableFuture<PeerTable> tableFuture = new CompletableFuture<>();
    private final List<String> refusals = new CopyOnWriteArrayList<>();

    /** A link to every rank of {@code worldSize} but {@code rank}, until the peer table says which ranks exist. */
    PeerLinks(int rank, int worldSize, InboundHandler handler, long bulkThreshold, long pollNanos) {
        this.rank = rank;
        this.handler = handler;
        this.bulkThreshold = bulkThreshold;
        this.pollNanos = pollNanos;
        var all = new PeerLink[worldSize];
        for (int p = 0; p < worldSize; p++) {
            all[p] = p == rank ? null : new PeerLink(p, handler, bulkThreshold);
        }
        this.links = all;
    }

    /** Every link, indexed by world rank (null for this rank and ranks without a link); never changed in place. */
    PeerLink[] all() {
        return links;
    }

    /** The link of {@code peer}, or null for this rank, an absent rank or one out of range. */
    PeerLink link(int peer) {
        PeerLink[] all = links;
        return peer >= 0 && peer < all.length ? all[peer] : null;
    }

    /** The peer table, or null before connect. */
    PeerTable table() {
        return table;
    }

    /** Connect, under the transport's monitor: drops the links of ranks that {@code t} does not list; returns the rest. */
    PeerLink[] keepListed(PeerTable t, int worldSize) {
        PeerLink[] all = links.clone();
        for (int p = 0; p < worldSize; p++) {
            all[p] = t.get(p) == null ? null : all[p];
        }
        links = all;
        return all;
    }

    /**
     * Growth, under the transport's monitor: adds a link for each of {@code infos} (ranks below {@code size}).
     *
     * @return the added links, in the order of {@code infos}
     */
    PeerLink[] grow(List<PeerInfo> infos, int size) {
        PeerLink[] added = new PeerLink[infos.size()];
        PeerLink[] grown = Arrays.copyOf(links, size);
        for (int i = 0; i < infos.size(); i++) {
            int p = infos.get(i).rank();
            added[i] = new PeerLink(p, handler, bulkThreshold);
            grown[p] = added[i];
        }
        links = grown; // before the table: whoever finds a rank in the table finds its link
        return added;
    }

    /** Makes {@code t} the peer table, after the links it names ({@link #keepListed}, {@link #grow}). */
    void publish(PeerTable t) {
        table = t;
    }

    /** The table is known (or, with null, never will be: the transport closed); runs the waiting actions. */
    void tableKnown(PeerTable t) {
        tableFuture.complete(t);
    }

    /** Runs {@code action} on {@code loop} once the peer table is known (with null if the transport closed first). */
    void whenTableKnown(EventLoop loop, Consumer<PeerTable> action) {
        tableFuture.whenComplete((t, e) -> Connection.execute(loop, rank, () -> action.accept(e == null ? t : null)));
    }

    void recordRefusal(String why) {
        refusals.add(why);
    }

    List<String> refusals() {
        return List.copyOf(refusals);
    }

    /** Dials the links of {@code all} to ranks above this one (the lower rank dials); returns them. */
    List<PeerLink> dialHigher(QuicEndpoint endpoint, PeerLink[] all, PeerTable t, Deadline deadline) {
        var out = new ArrayList<PeerLink>();
        for (PeerLink l : all) {
            if (l != null && l.peer > rank) {
                endpoint.dial(l, t.get(l.peer).quicAddress(), deadline);
                out.add(l);
            }
        }
        return out;
    }

    /** Marks every peer down with {@code why}, without reporting it (this rank closes its transport). */
    void downAll(String why) {
        for (PeerLink l : links) {
            if (l != null) {
                l.down(why, null, false);
            }
        }
    }

    // ------------------------------------------------------------------ Progress: callers read their own lanes

    @Override
    public boolean poll(Lane lane) {
        return poll(lane, -1, System.nanoTime());
    }

    @Override
    public boolean poll(Lane lane, int worldPeer) {
        return pollOne(lane, worldPeer, System.nanoTime());
    }

    @Override
    public boolean poll(Lane lane, int worldPeer, long now) {
        return worldPeer < 0 ? pollEvery(lane, now) : pollOne(lane, worldPeer, now);
    }

    private boolean pollEvery(Lane lane, long now) {
        boolean any = false;
        for (PeerLink l : links) {
            BulkConnection b = l == null ? null : l.bulk(lane);
            if (b != null && b.isReady() && !b.isClosed()) {
                any |= b.tryPoll(now);
            }
        }
        return any;
    }

    private boolean pollOne(Lane lane, int worldPeer, long now) {
        boolean any = false;
        PeerLink[] all = links;
        for (int r = 0; r < all.length; r++) {
            BulkConnection b = all[r] == null ? null : all[r].bulk(lane);
            if (b != null && b.isReady() && !b.isClosed()) {
                if (r == worldPeer) {
                    any = b.tryPoll(now);
                } else {
                    b.drive(now);
                }
            }
        }
        return any;
    }

    @Override
    public void handBack(Lane lane) {
        for (PeerLink l : links) {
            BulkConnection b = l == null ? null : l.bulk(lane);
            if (b != null) {
                b.handBack();
            }
        }
    }

    @Override
    public long pollNanos() {
        return pollNanos;
    }
}
