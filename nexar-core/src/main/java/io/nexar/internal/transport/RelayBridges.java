package io.nexar.internal.transport;

import io.nexar.ErrorContext;
import io.nexar.NexarException;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.internal.protocol.EnrolmentMessage;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.topology.NeighbourGraph;
import io.nexar.internal.topology.RoutingTable;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Switches a {@link RelayTransport}'s routes to a rebuilt world's ({@link #rebuild}) and opens the links of a
 * recovery's bridges ({@link io.nexar.internal.topology.NeighbourGraph#bridged}) for it: the two ends of a new link exchange link offers ({@link Transport#linkOffer}: where each
 * listens and which member identity it must present) over the routes that still connect them (the agreement reached
 * both), then the lower rank dials and the higher accepts only the identity it was offered. Order, so that a dial
 * never comes before the other end expects it: a rank sends its offer to each new peer above it at once; for each new
 * peer below it, it waits for that peer's offer, expects the peer ({@link Transport#linkMembers}'s {@code listed})
 * and only then answers with its own offer; then it waits for the offers of the peers above it and dials them. The
 * lowest rank of a set of new links waits for no one, so the chain ends. A transport whose endpoints all reach each
 * other (in-process: {@code linkOffer} null) exchanges nothing.
 *
 * <p>Offers that arrive before this rank reached the decision are kept (at most one per world rank, the last).
 */
final class RelayBridges {
    private static final Logger LOG = LoggerFactory.getLogger(RelayTransport.class); // the relay's own log lines

    private final RelayTransport relay;
    private final Map<Integer, CompletableFuture<byte[]>> offers = new ConcurrentHashMap<>();
    /**
     * The ranks this rank reported down because no route reached them ({@link RelayNotices#reportCutOff}); once a
     * rebuild's routes reach one again, that report is stale ({@link #reachesAgain}).
     */
    private final java.util.Set<Integer> reportedCutOff = ConcurrentHashMap.newKeySet();
    /**
     * How long a recovery waits for the links that bridge a hole ({@link #rebuild}): a quarter of
     * {@code recovery.timeout}, so that a survivor that never links back (it did not learn the decision: cut off
     * while it was taken) is reported down in time for the next agreement to exclude it.
     */
    private final Duration linkTimeout;

    RelayBridges(RelayTransport relay, Duration linkTimeout) {
        this.relay = relay;
        this.linkTimeout = linkTimeout;
    }

    /**
     * {@link RelayTransport#rebuilt}: the routes become those of the topology's graph without the ranks that are no
     * longer members (and without the members this rank already knows failed), with the holes bridged if
     * {@code links} can link running members (the new links opened first, then the routes switched; the old routes
     * stay accepted in {@link RelayTransport#previous}).
     *
     * @param links the underlying transport
     * @param member whether a world rank is a member of the rebuilt world
     */
    void rebuild(Transport links, IntPredicate member) {
        int rank = relay.rank();
        RoutingTable old;
        RoutingTable routes;
        NeighbourGraph next;
        synchronized (relay) { // with the routes in use as they are now: a death learnt from here on marks both
            old = relay.table;
            NeighbourGraph formed = old.graph().formation();
            next = links.linksMembers() ? formed.bridged(r -> r != rank && !member.test(r)) : formed;
            // a member this rank already knows failed stays dead: the decision can leave in a rank whose death was
            // learnt meanwhile (the next recovery removes it), and the report of that death has passed; routed
            // through again, frames to the ranks behind it bounce between this rank and a neighbour that routes
            // around it until their hop limit drops them, and no send ever fails to show the death again. A rank
            // marked dead only because it was cut off is routed through again (a bridge may reach it)
            RoutingTable before = old;
            routes = RoutingTable.of(next, rank, r -> !member.test(r)
                    || r < before.graph().worldSize() && before.isDead(r) && relay.failures.knows(r));
            // a growth that a failure interrupted is void: the rebuilt world is the old one's survivors; until the
            // switch below, envelopes routed over the new graph by ranks that switched first are accepted, and a
            // death learnt meanwhile marks the new routes too (markDead), not only the ones they replace
            relay.pending = routes;
        }
        int[] added = Arrays.stream(next.neighbours(rank))
                .filter(p -> member.test(p) && !old.graph().adjacent(rank, p)).toArray();
        int unlinked = -1;
        String why = null;
        if (added.length > 0) {
            LOG.info("recovery: rank {} opens links to world ranks {} that bridge the holes of the failed ranks"
                    + " (topology={})", rank, Arrays.toString(added), next.topology());
            try {
                link(relay, links, added, Deadline.after(linkTimeout));
            } catch (NexarException | IllegalArgumentException e) {
                // the peer never linked back (or its offer was malformed): it did not learn the decision (cut off while it was taken) or died.
                // It is down for this rank, and the next recovery excludes it
                unlinked = e instanceof NexarException n ? n.peer().orElse(added[0]) : added[0];
                why = "failed (it did not open the link to world rank " + rank + " that the rebuilt world's graph"
                        + " needs within " + linkTimeout.toMillis() + " ms: " + e.getMessage() + ")";
                LOG.warn("recovery: rank {}: world rank {} {}", rank, unlinked, why);
            }
        }
        synchronized (relay) {
            if (next.hasBridges() || old.graph().hasBridges()) {
                relay.previous = old;
            }
            RoutingTable grown = relay.pending; // with the ranks learnt dead while linking
            RoutingTable now = grown != null ? grown : routes;
            relay.table = unlinked >= 0 ? now.withDead(unlinked) : now;
            relay.pending = null;
            relay.notifyAll(); // relays that held a frame its sender routed over the new graph (forward)
        }
        if (unlinked >= 0) {
            relay.router.onPeerDown(unlinked, why, null);
            relay.reportCutOff(why);
        }
        // the ranks this rank found cut off before it applied the decision that bridges them: every part that marked
        // them down forgets it, so this rank neither refuses their frames nor suspects them in its next agreement
        // (where the others would merge that suspicion and could lose their quorum)
        relay.router.routesRebuilt();
        relay.arrivals.releaseHeld(); // recovery frames routed over the new graph by ranks that switched first
    }

    /** {@return the ranks this rank reported down because no route reached them} */
    int[] reportedCutOff() {
        return reportedCutOff.stream().mapToInt(Integer::intValue).toArray();
    }

    /** This rank reports world rank {@code peer} down: no route reaches it ({@link RelayNotices#reportCutOff}). */
    void cutOff(int peer) {
        reportedCutOff.add(peer);
    }

    /**
     * Whether world rank {@code peer} was reported down by this rank only because no route reached it, and the
     * routes in use reach it now (a rebuild bridged the hole): that report is stale. A rank that failed since is
     * dead in the routes (every report of a failure marks it), so this stays false for it.
     *
     * @param peer a world rank
     * @return true if this rank's cut-off report of it is stale
     */
    boolean reachesAgain(int peer) {
        RoutingTable routes = relay.table;
        return reportedCutOff.contains(peer) && peer < routes.graph().worldSize() && peer != relay.rank()
                && !routes.isDead(peer) && routes.nextHop(peer) >= 0;
    }

    /** {@link RelayTransport#onLinkOffer}. */
    Delivery onOffer(int from, EnrolmentMessage.PeerTable offer) {
        if (offer.entries().size() != 1 || offer.entries().getFirst().rank() != from || from == relay.rank()
                || from >= relay.worldSize()) {
            throw relay.violation(from, "sent a PEER_TABLE frame that is not a link offer of its own (one entry"
                    + " naming world rank " + from + "): " + offer.entries().size() + " entries");
        }
        byte[] frame = new byte[Math.toIntExact(MessageCodec.encodedSize(offer))];
        MessageCodec.encode(offer, MemorySegment.ofArray(frame));
        offers.compute(from, (r, f) -> f == null || f.isDone() ? CompletableFuture.completedFuture(frame)
                : complete(f, frame));
        return Delivery.ACCEPTED;
    }

    private static CompletableFuture<byte[]> complete(CompletableFuture<byte[]> f, byte[] frame) {
        f.complete(frame);
        return f;
    }

    /**
     * Opens the links to {@code added} (see the class comment), at most until {@code deadline}.
     *
     * @throws PeerFailedException naming a peer whose offer did not come or whose link is not up in time
     */
    static void link(RelayTransport relay, Transport links, int[] added, Deadline deadline) {
        byte[] own = links.linkOffer();
        if (own == null) {
            var peers = Arrays.stream(added).mapToObj(p -> new Newcomer(p, new byte[0])).toList();
            links.linkMembers(peers, () -> { }, deadline);
            return;
        }
        relay.bridges.exchange(links, own, added, deadline);
    }

    private void exchange(Transport links, byte[] own, int[] added, Deadline deadline) {
        int self = relay.rank();
        Message offer = MessageCodec.decode(self, MemorySegment.ofArray(own), own.length);
        int[] lower = Arrays.stream(added).filter(p -> p < self).toArray();
        int[] higher = Arrays.stream(added).filter(p -> p > self).toArray();
        for (int p : higher) {
            send(p, offer, deadline);
        }
        if (lower.length > 0) {
            links.linkMembers(await(lower, deadline), () -> {
                for (int p : lower) {
                    send(p, offer, deadline);
                }
            }, deadline);
        }
        if (higher.length > 0) {
            links.linkMembers(await(higher, deadline), () -> { }, deadline);
        }
    }

    private void send(int peer, Message offer, Deadline deadline) {
        relay.send(peer, Lane.CONTROL, offer, deadline, context(peer));
    }

    private List<Newcomer> await(int[] peers, Deadline deadline) {
        var out = new ArrayList<Newcomer>(peers.length);
        for (int p : peers) {
            CompletableFuture<byte[]> f = offers.computeIfAbsent(p, r -> new CompletableFuture<>());
            try {
                out.add(new Newcomer(p, f.get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS)));
                offers.remove(p, f);
            } catch (TimeoutException e) {
                throw new PeerFailedException(context(p), "cannot complete: rank " + p + " sent no link offer in"
                        + " time");
            } catch (ExecutionException e) {
                throw new PeerFailedException(context(p), "cannot complete: rank " + p + " " + e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PeerFailedException(context(p), "cannot complete: interrupted while waiting for rank " + p
                        + "'s link offer");
            }
        }
        return out;
    }

    private ErrorContext context(int peer) {
        return new ErrorContext(Operation.RECOVERY, relay.rank(), relay.worldSize(), -1, -1, -1, peer);
    }
}
