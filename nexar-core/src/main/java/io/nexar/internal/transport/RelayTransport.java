package io.nexar.internal.transport;

import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.topology.NeighbourGraph;
import io.nexar.internal.topology.RoutingTable;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.transport.RelayArrivals.Verdict;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Transport} for a sparse topology ({@code topology=k-regular:K} or {@code hypercube}): messages to a
 * neighbour go straight to the underlying transport; a message to any other rank is encoded whole into a
 * {@link Message.Relay} envelope and handed to the next hop of this rank's {@link RoutingTable}. Relays and the
 * destination receive envelopes through {@link InboundRouter}, which calls {@link #onRelay} or
 * {@link #deliverRelayWaiting}. Never used on a full mesh, whose path stays exactly as it was.
 *
 * <p>Checks of an arriving envelope (a failure is a {@link ProtocolException} blaming the neighbour it came from):
 * the neighbour is one; both ranks are in the world; the claimed origin is the neighbour or a rank whose shortest
 * routes can pass through it ({@link RoutingTable#mayForward}); the hop count stays within the limit; the inner frame
 * decodes and is not itself an envelope. Order: the route from one origin to one destination is the same for every
 * frame while the dead set is unchanged, and each link keeps order per lane, so frames arrive in the order sent.
 */
public final class RelayTransport implements Transport {
    // package-private fields and methods below are also used by RelayNotices (failure notices and the close tree)
    private final Transport links;
    final InboundRouter router;
    private final long maxFrameBytes;
    final Duration forwardTimeout;
    /**
     * How long a recovery waits for the links that bridge a hole ({@link #rebuilt}): a quarter of
     * {@code recovery.timeout}, so that a survivor that never links back (it did not learn the decision: cut off
     * while it was taken) is reported down in time for the next agreement to exclude it.
     */
    private final Duration linkTimeout;
    volatile RoutingTable table;
    /**
     * The grown world's routes between {@link #admit(List, int[], Deadline)} and {@link #admitted} (null otherwise):
     * arriving envelopes may follow them already, from ranks that switched first ({@link RelayGrowth}).
     */
    volatile RoutingTable pending;
    /** The routes before the last growth, or null: envelopes sent by ranks that have not switched yet follow them. */
    volatile RoutingTable previous;
    /** Which peers the underlying transport was asked to reach (tests check they are neighbours). */
    private volatile AtomicIntegerArray linksUsed;
    private final RelayQueue queue;
    volatile CloseTree closeTree;
    /** The failures this rank knows of and tells its neighbours ({@link FailureSpread}). */
    final FailureSpread failures;
    /** Checks arriving envelopes and decodes their inner messages ({@link RelayArrivals}). */
    private final RelayArrivals arrivals;
    /** Link offers of the members this rank bridges to ({@link RelayBridges}). */
    final RelayBridges bridges;
    /** Completed once the underlying transport's links (bulk lanes included) are all formed. */
    private final java.util.concurrent.CompletableFuture<Void> linksFormed =
            new java.util.concurrent.CompletableFuture<>();
    volatile boolean closed;
    private static final Logger LOG = LoggerFactory.getLogger(RelayTransport.class);

    private RelayTransport(Transport links, InboundRouter router, NexarConfig config, RoutingTable routes) {
        this.links = links;
        this.router = router;
        this.maxFrameBytes = config.maxFrameBytes();
        this.forwardTimeout = config.collectiveTimeout().compareTo(config.p2pTimeout()) > 0
                ? config.collectiveTimeout() : config.p2pTimeout();
        this.linkTimeout = config.recoveryTimeout().dividedBy(4);
        this.table = routes;
        this.linksUsed = new AtomicIntegerArray(routes.graph().worldSize());
        this.queue = new RelayQueue(links.rank(), config.unexpectedMaxBytes(), this::forwardQueued);
        this.closeTree = RelayGrowth.closeTree(routes);
        this.failures = new FailureSpread(this);
        this.arrivals = new RelayArrivals(this, maxFrameBytes);
        this.bridges = new RelayBridges(this);
    }

    /**
     * The transport a rank uses under {@code config}'s topology: {@code links} itself on a full mesh, else a relaying
     * transport over it, attached to {@code router}.
     *
     * @param links the transport that reaches this rank's neighbours
     * @param router the process's inbound router (relayed frames arrive through it)
     * @param config the configuration (topology, frame and store bounds, timeouts)
     * @return the transport to build communicators on
     * @throws io.nexar.ClusterFormationException if the topology cannot be built on this world size
     */
    public static Transport over(Transport links, InboundRouter router, NexarConfig config) {
        NeighbourGraph graph = NeighbourGraph.of(config.topology(), links.worldSize());
        if (graph.fullMesh()) {
            return links;
        }
        var relay = new RelayTransport(links, router, config, RoutingTable.of(graph, links.rank()));
        router.attach(relay);
        return relay;
    }

    /**
     * Like {@link #over} for a worker admitted into a running cluster by a growth: the routes are those of the grown
     * world's graph ({@code worldSize} ranks) without the world ranks that are not members of it, the routes every
     * member switches to when it admits this worker ({@link #admitted}).
     *
     * @param links the transport that reaches this rank's neighbours
     * @param router the process's inbound router (relayed frames arrive through it)
     * @param config the configuration (topology, frame and store bounds, timeouts)
     * @param worldSize the grown world size (the highest world rank plus one)
     * @param worldRanks the world ranks of the grown world, this one included
     * @return the transport to build communicators on
     * @throws io.nexar.ClusterFormationException if the topology cannot be built on this world size
     */
    public static Transport overAdmitted(Transport links, InboundRouter router, NexarConfig config, int worldSize,
                                         int[] worldRanks) {
        NeighbourGraph graph = NeighbourGraph.of(config.topology(), worldSize);
        if (graph.fullMesh()) {
            return links;
        }
        var relay = new RelayTransport(links, router, config, RelayGrowth.routes(graph, links.rank(), worldRanks));
        router.attach(relay);
        return relay;
    }

    /**
     * Whether this rank holds a link to {@code peer} in the graph it routes over now.
     *
     * @param routes the routes now
     * @param peer a world rank
     * @return true for a neighbour
     */
    private boolean linked(RoutingTable routes, int peer) {
        return peer < routes.graph().worldSize() && routes.graph().adjacent(rank(), peer);
    }

    /** The routes that reach {@code destination}: the grown world's while a growth is pending and only it has it. */
    private RoutingTable routesTo(int destination) {
        RoutingTable routes = table;
        RoutingTable grown = pending;
        return destination >= routes.graph().worldSize() && grown != null ? grown : routes;
    }

    @Override
    public int rank() {
        return links.rank();
    }

    @Override
    public int worldSize() {
        return links.worldSize();
    }

    /** {@return the routes this rank uses now} */
    public RoutingTable routes() {
        return table;
    }

    /**
     * Whether the underlying transport was ever asked to reach {@code peer} (a neighbour, or this rank itself).
     *
     * @param peer a world rank
     * @return true if a frame went to it directly
     */
    public boolean usedLinkTo(int peer) {
        return linksUsed.get(peer) != 0;
    }

    @Override
    public void send(int peer, Lane lane, Message message, Deadline deadline, ErrorContext context) {
        RoutingTable routes = routesTo(peer);
        if (peer == rank() || linked(routes, peer)) {
            direct(peer, lane, message, deadline, context);
            return;
        }
        long size = MessageCodec.encodedSize(message);
        if (size > maxFrameBytes - WireFormat.RELAY_ENVELOPE_BYTES) {
            throw new IllegalArgumentException("a " + message.type() + " frame of " + size + " bytes for rank " + peer
                    + " cannot be relayed: with its " + WireFormat.RELAY_ENVELOPE_BYTES + "-byte envelope it exceeds"
                    + " max.frame.size " + maxFrameBytes);
        }
        MemorySegment frame = MemorySegment.ofArray(new byte[Math.toIntExact(size)]);
        MessageCodec.encode(message, frame);
        var envelope = new Message.Relay(rank(), peer, 1, Math.min(255, Math.max(1,
                routes.graph().worldSize() - 1)), frame);
        try {
            forward(envelope, lane, deadline, context, -1);
        } catch (PeerFailedException e) {
            if (e.peer().orElse(-1) == peer || e.context().rank() == rank()) {
                throw e;
            }
            // thrown by a relay further on (in-process: on this thread): say it from this rank's side
            throw new PeerFailedException(context.withPeer(peer), "cannot complete: rank " + peer
                    + " could not be reached through relays (" + e.getMessage() + ")", e);
        }
    }

    /**
     * Sends an envelope to its next hop, routing around next hops that turn out dead. A relayed envelope
     * ({@code from} the neighbour it came from, -1 for this rank's own) whose next hop would be that neighbour again
     * waits first, at most until the deadline or {@link FailureSpread#NOTICE_GRACE}, for this rank's routes to
     * change: the neighbour may route over a newer graph than this rank (it switched to a recovery's bridges first,
     * or learnt of a death first), and sending the frame back would bounce it between the two until the hop limit
     * drops it. If the routes stay, the frame goes back all the same (the neighbour's routes are then the older).
     */
    private void forward(Message.Relay envelope, Lane lane, Deadline deadline, ErrorContext context, int from) {
        int destination = envelope.destination();
        while (true) {
            RoutingTable routes = routesTo(destination);
            int next = destination < routes.graph().worldSize() ? routes.nextHop(destination) : -1;
            if (next >= 0 && next == from && awaitNewRoutes(routes, deadline)) {
                continue;
            }
            if (next < 0) {
                throw new PeerFailedException(context.withPeer(destination), "cannot complete: rank " + destination
                        + " cannot be reached from rank " + rank() + ": every route to it passes a failed rank");
            }
            try {
                if (LOG.isDebugEnabled()) {
                    LOG.debug("rank {} sends a relayed frame ({} bytes, hop {}) from rank {} to rank {} to rank {}"
                            + " on lane {}", rank(), envelope.frame().byteSize(), envelope.hops(), envelope.origin(),
                            destination, next, lane);
                }
                direct(next, lane, envelope, deadline, context);
                return;
            } catch (PeerFailedException e) {
                if (next == destination || e.peer().orElse(-1) != next) {
                    throw e;
                }
                markDead(next); // the hop died: take the next route (failure detection names it, not the relay)
                // a rebuild may have reset this rank's routes to ranks it had seen die: if that hop was the last
                // way to some ranks, they are cut off (found here, as on the failure itself: RelayNotices)
                RelayNotices.reportCutOff(this, "failed (" + e.getMessage() + ")");
            }
        }
    }

    /** Waits until the routes are no longer {@code routes} (true) or the bounce wait is over (false). */
    private synchronized boolean awaitNewRoutes(RoutingTable routes, Deadline deadline) {
        long end = System.nanoTime() + Math.min(deadline.remainingNanos(), FailureSpread.NOTICE_GRACE.toNanos());
        while (table == routes && !closed) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return table != routes;
    }

    /**
     * Sends to a neighbour. If its link failed, first waits (briefly, {@link FailureSpread#awaitReason}) for the
     * neighbour's notice of an earlier failure that made it leave, so that what fails here names the cause.
     */
    void direct(int peer, Lane lane, Message message, Deadline deadline, ErrorContext context) {
        try {
            directNoWait(peer, lane, message, deadline, context);
        } catch (PeerFailedException e) {
            if (peer != rank() && !failures.knows(peer)) {
                failures.awaitReason(peer);
                failures.learned(peer, reasonOf(e, peer), -1);
            }
            throw e;
        }
    }

    /** Sends to a neighbour (or this rank). */
    void directNoWait(int peer, Lane lane, Message message, Deadline deadline, ErrorContext context) {
        linksUsed.set(peer, 1);
        links.send(peer, lane, message, deadline, context);
    }

    /** Waits until what was sent to neighbour {@code peer} left this process ({@link Transport#flush}). */
    void flushLink(int peer, Deadline deadline) {
        links.flush(peer, deadline);
    }

    /** What completes "rank N ..." for a failure seen on the link to {@code peer}. */
    private static String reasonOf(PeerFailedException e, int peer) {
        String text = e.getMessage();
        String own = "cannot complete: rank " + peer + " ";
        int at = text.indexOf(own);
        if (at >= 0) {
            return text.substring(at + own.length());
        }
        at = text.indexOf("cannot complete: ");
        return "failed (" + (at >= 0 ? text.substring(at + "cannot complete: ".length()) : text) + ")";
    }

    /**
     * Waits until what was sent to {@code peer} so far left this process: the link to it, or to the next hop
     * towards it.
     *
     * @param peer a world rank
     * @param deadline how long to wait at most
     */
    @Override
    public void flush(int peer, Deadline deadline) {
        RoutingTable routes = routesTo(peer);
        int next = peer == rank() || linked(routes, peer) ? peer
                : peer < routes.graph().worldSize() ? routes.nextHop(peer) : -1;
        if (next >= 0) {
            links.flush(next, deadline);
        }
    }

    /**
     * A failure naming world rank {@code failed} is about to reach the program, which may exit at once: if this rank
     * knows that rank failed, it tells its live neighbours first (once; {@link FailureSpread#tell}) so that the ranks
     * behind it name the failed rank, not this one when it leaves; either way what this rank sent to its neighbours
     * so far (a failed operation's aborts) is flushed to the network before this returns.
     *
     * @param failed the world rank the failure names, or -1
     */
    public void beforeFailureSurfaces(int failed) {
        if (closed) {
            return;
        }
        if (failed >= 0 && failures.knows(failed)) {
            failures.tell(failed, -1);
        } else {
            failures.flushNeighbours(Deadline.after(FailureSpread.TELL_TIMEOUT));
        }
    }

    /**
     * A COLLECTIVE_ABORT arrived from world rank {@code from}: if it names a rank whose failure caused it, this rank
     * knows that rank failed (and tells its neighbours before the abort's failure reaches the program).
     *
     * @param from the world rank it came from (its origin)
     * @param abort the abort
     */
    void onAbort(int from, Message.CollectiveAbort abort) {
        int culprit = abort.culprit();
        if (abort.reason() == io.nexar.internal.protocol.AbortReason.FAILED && culprit >= 0 && culprit != from
                && culprit < worldSize()) {
            failures.learned(culprit, "failed (reported by world rank " + from + ")", from);
        }
    }

    /**
     * The world was rebuilt (automatic recovery): the routes become those of the topology's graph without exactly
     * the ranks that are no longer members. Every survivor applies the same agreed decision, so all of them route the
     * same way whatever each had learnt before (a rank it marked down on its own that the agreement kept is routed
     * through again; a link that is really down is routed around again at its first failed send).
     *
     * <p>If the underlying transport can open links between running members ({@link Transport#linksMembers}), the
     * graph is the formation graph with the holes of the non-members bridged ({@link NeighbourGraph#bridged}): this
     * rank first opens its links that the bridged graph adds (each survivor does so for its own, and a link is up
     * once both ends asked for it), accepting envelopes routed over the bridged graph meanwhile, and then switches
     * its routes; envelopes routed over the old graph stay accepted after the switch ({@link #previous}). Called on
     * the membership thread before the rebuilt world carries traffic, so its first operation takes the new routes.
     *
     * @param member whether a world rank is a member of the rebuilt world
     */
    public void rebuilt(java.util.function.IntPredicate member) {
        RoutingTable old = table;
        NeighbourGraph formed = old.graph().formation();
        NeighbourGraph next = links.linksMembers() ? formed.bridged(r -> r != rank() && !member.test(r)) : formed;
        RoutingTable routes = RoutingTable.of(next, rank(), r -> !member.test(r));
        int[] added = java.util.Arrays.stream(next.neighbours(rank()))
                .filter(p -> member.test(p) && !old.graph().adjacent(rank(), p)).toArray();
        synchronized (this) {
            // a growth that a failure interrupted is void: the rebuilt world is the old one's survivors; while the
            // new links open, envelopes routed over them by ranks that switched first are accepted
            pending = added.length > 0 ? routes : null;
        }
        int unlinked = -1;
        String why = null;
        if (added.length > 0) {
            LOG.info("recovery: rank {} opens links to world ranks {} that bridge the holes of the failed ranks"
                    + " (topology={})", rank(), java.util.Arrays.toString(added), next.topology());
            try {
                RelayBridges.link(this, links, added, Deadline.after(linkTimeout));
            } catch (io.nexar.NexarException | IllegalArgumentException e) {
                // the peer never linked back (or its offer was malformed): it did not learn the decision (cut off while it was taken) or died.
                // It is down for this rank, and the next recovery excludes it
                unlinked = e instanceof io.nexar.NexarException n ? n.peer().orElse(added[0]) : added[0];
                why = "failed (it did not open the link to world rank " + rank() + " that the rebuilt world's graph"
                        + " needs within " + linkTimeout.toMillis() + " ms: " + e.getMessage() + ")";
                LOG.warn("recovery: rank {}: world rank {} {}", rank(), unlinked, why);
            }
        }
        synchronized (this) {
            if (next.hasBridges() || old.graph().hasBridges()) {
                previous = old;
            }
            RoutingTable now = pending != null ? pending : routes; // with the ranks learnt dead while linking
            table = unlinked >= 0 ? now.withDead(unlinked) : now;
            pending = null;
            notifyAll(); // relays that held a frame its sender routed over the new graph (forward)
        }
        if (unlinked >= 0) {
            router.onPeerDown(unlinked, why, null);
            reportCutOff(why);
        }
    }

    /**
     * A PEER_TABLE frame of one entry arrived from world rank {@code from} (relayed or not): its link offer for a
     * bridge of a recovery ({@link RelayBridges}).
     *
     * @param from the rank it came from (the origin of a relayed frame)
     * @param offer the frame
     * @return {@link Delivery#ACCEPTED}
     * @throws ProtocolException if the frame is not one entry naming {@code from}
     */
    Delivery onLinkOffer(int from, io.nexar.internal.protocol.EnrolmentMessage.PeerTable offer) {
        return bridges.onOffer(from, offer);
    }

    /** A rank is down: routes avoid it from now on (a rank of a pending growth only once the growth is used). */
    synchronized void markDead(int peer) {
        if (peer < table.graph().worldSize()) {
            table = table.withDead(peer);
            notifyAll();
        }
        RoutingTable grown = pending;
        if (grown != null && peer < grown.graph().worldSize()) {
            pending = grown.withDead(peer);
        }
    }

    /**
     * An envelope arrived from neighbour {@code from} on a transport that cannot wait (network): for this rank, its
     * inner message is handed to the router as if from the origin; for another rank, it is queued for its next hop
     * (bounded; {@code FULL} when the queue has no room, so the transport pauses that neighbour's lane).
     *
     * @param from the neighbour it arrived from
     * @param envelope the envelope; its frame is valid only during this call
     * @return whether it was taken
     * @throws ProtocolException if the envelope breaks a relay rule (see the class comment)
     */
    Delivery onRelay(int from, Message.Relay envelope) {
        Verdict v = arrivals.check(from, envelope);
        if (LOG.isDebugEnabled()) {
            LOG.debug("rank {} got a relayed frame ({} bytes, hop {}) from rank {} to rank {} from neighbour {}: {}",
                    rank(), envelope.frame().byteSize(), envelope.hops(), envelope.origin(), envelope.destination(),
                    from, v);
        }
        if (v == Verdict.DELIVER) {
            Delivery d = router.onMessage(envelope.origin(), arrivals.decodedOnce(from, envelope));
            if (d != Delivery.FULL) {
                arrivals.forget(from, envelope);
            }
            return d;
        }
        if (v == Verdict.DROP) {
            return Delivery.ACCEPTED;
        }
        return queue.offer(RelayArrivals.next(envelope), RelayArrivals.laneOf(envelope), from) ? Delivery.ACCEPTED
                : Delivery.FULL;
    }

    /**
     * An envelope arrived from neighbour {@code from} on a transport whose sender waits (in-process): delivered
     * here, or forwarded to the next hop on this thread, waiting for room at most until the deadline.
     *
     * @param from the neighbour it arrived from
     * @param envelope the envelope; its frame is valid only during this call
     * @param deadlineNanos when to give up ({@link System#nanoTime()})
     * @return false if the deadline passed first
     * @throws ProtocolException if the envelope breaks a relay rule (see the class comment)
     * @throws PeerFailedException if the destination cannot be reached
     * @throws InterruptedException if interrupted while waiting
     */
    boolean deliverRelayWaiting(int from, Message.Relay envelope, long deadlineNanos) throws InterruptedException {
        Verdict v = arrivals.check(from, envelope);
        if (v == Verdict.DELIVER) {
            Message inner = arrivals.decodedOnce(from, envelope);
            boolean taken = router.deliverWaiting(envelope.origin(), inner, deadlineNanos);
            if (taken) {
                arrivals.forget(from, envelope);
            }
            return taken;
        }
        if (v == Verdict.DROP) {
            return true;
        }
        long left = deadlineNanos - System.nanoTime();
        var deadline = new Deadline(Duration.ofNanos(Math.max(0, left)), deadlineNanos);
        try {
            forward(RelayArrivals.next(envelope), RelayArrivals.laneOf(envelope), deadline, relayContext(envelope),
                    from);
            return true;
        } catch (OperationTimeoutException e) {
            return false;
        }
    }

    /**
     * The underlying transport formed every link (on a network transport: {@code connect} returned): frames queued
     * for other ranks are forwarded from now on. A neighbour that formed first may relay through this rank while it
     * still connects its other links; those frames wait in the relay queue (bounded) until this call, since a link
     * that is not formed yet cannot take them, and one whose TCP lanes are not set up yet would carry them on
     * another path than the frames after them (out of order).
     */
    public void linksFormed() {
        linksFormed.complete(null);
    }

    /** Forwards one queued envelope (a copy) on the relay queue's thread, once the links are formed. */
    private void forwardQueued(Message.Relay envelope, Lane lane, int from) {
        Deadline deadline = Deadline.after(forwardTimeout);
        if (!linksFormed.isDone()) {
            try {
                linksFormed.get(deadline.remainingNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                throw new OperationTimeoutException(relayContext(envelope), forwardTimeout, "rank " + rank()
                        + "'s own links to form, to forward a frame from rank " + envelope.origin());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new io.nexar.CommunicatorClosedException(relayContext(envelope), "failed: interrupted while"
                        + " waiting for this rank's links to form");
            }
        }
        forward(envelope, lane, deadline, relayContext(envelope), from);
    }

    private ErrorContext relayContext(Message.Relay envelope) {
        return new ErrorContext(io.nexar.Operation.SEND, rank(), worldSize(), -1, -1, -1, envelope.destination());
    }

    /** {@return how many relayed frames this rank dropped (failed source check or hop limit)} */
    public long droppedFrames() {
        return arrivals.droppedFrames();
    }

    ProtocolException violation(int peer, String what) {
        return new ProtocolException(new ErrorContext(io.nexar.Operation.DECODE, rank(), worldSize(), -1, -1, -1,
                peer), "failed: rank " + peer + " " + what);
    }

    /**
     * A rank went down (reported by the router): routes avoid it; news of a failure is told to this rank's
     * neighbours ({@link RelayNotices#onPeerDown}).
     *
     * @return true if it was news: the router then calls {@link #reportCutOff} once it has reported the rank itself
     */
    boolean onPeerDown(int peer, String why, Throwable cause) {
        return RelayNotices.onPeerDown(this, peer, why, cause);
    }

    /**
     * After the router reported a rank down: the live ranks that no route reaches any more are reported down too
     * ({@link RelayNotices#reportCutOff}), after the rank whose loss cut them off, so that what fails names the
     * cause first, not the cascade.
     *
     * @param why what completes "rank N ..." for the failure that was just learnt
     */
    void reportCutOff(String why) {
        RelayNotices.reportCutOff(this, why);
    }

    /**
     * A rank says {@code report.rank()} failed: fail what waits for that rank here, route around it and pass the
     * report on ({@link RelayNotices#onPeerDownReported}).
     *
     * @param from the rank that reports it (the origin of a relayed report)
     * @param report the report
     * @return {@link Delivery#ACCEPTED}
     * @throws ProtocolException if the rank is outside the world
     */
    Delivery onPeerDownReported(int from, Message.PeerDown report) {
        return RelayNotices.onPeerDownReported(this, from, report);
    }

    @Override
    public void exclude(int peer, String why) {
        if (peer >= table.graph().worldSize()) { // a newcomer of a growth that failed: the old world stays
            RelayGrowth.notAdmitted(this, peer, why);
            return;
        }
        boolean neighbour = table.graph().adjacent(rank(), peer);
        markDead(peer); // known dead first: an exclusion by recovery is not spread (the agreement told everyone)
        links.exclude(peer, why);
        if (!neighbour && peer != rank()) {
            // no link of ours reports it (a network transport has none to a non-neighbour): say it here, as the
            // Transport contract wants (the handler's onPeerDown is idempotent)
            router.onPeerDown(peer, why, null);
        }
        if (peer != rank()) { // survivors that the exclusion cuts off from this rank are lost to it as well
            RelayNotices.reportCutOff(this, why);
        }
    }

    /**
     * Refused: a sparse world needs the members to compute the grown graph ({@link #admit(List, int[], Deadline)}).
     *
     * @param newcomers the admitted workers
     * @param deadline when to give up
     * @throws UnsupportedOperationException always
     */
    @Override
    public void admit(List<Newcomer> newcomers, Deadline deadline) {
        throw new UnsupportedOperationException("a sparse topology admits workers with the members' world ranks");
    }

    /**
     * Prepares a growth ({@link RelayGrowth#prepare}): computes the grown world's graph and routes, checks that it
     * needs no new link between members, and links this rank to the newcomers that are its neighbours in it. The
     * routes switch at {@link #admitted}.
     *
     * @param newcomers the admitted workers, each world rank above every rank of this world
     * @param members the world ranks of the current members
     * @param deadline when to give up
     * @throws io.nexar.ClusterFormationException if the grown graph cannot be built here (see the class comment of
     *         {@link RelayGrowth}) or a newcomer could not be connected
     */
    @Override
    public void admit(List<Newcomer> newcomers, int[] members, Deadline deadline) {
        RelayGrowth.prepare(this, links, newcomers, members, deadline);
    }

    @Override
    public void admitted(int[] worldRanks) {
        RelayGrowth.commit(this);
    }

    /** Closes the link to {@code peer} for good, if the underlying transport knows the rank (a failed growth's). */
    void excludeLink(int peer, String why) {
        if (peer < links.worldSize()) {
            links.exclude(peer, why);
        }
    }

    /** Grows the record of the links used to the grown world's size. */
    synchronized void growLinksUsed(int worldSize) {
        AtomicIntegerArray now = linksUsed;
        if (now.length() < worldSize) {
            var grown = new AtomicIntegerArray(worldSize);
            for (int i = 0; i < now.length(); i++) {
                grown.set(i, now.get(i));
            }
            linksUsed = grown;
        }
    }

    /**
     * Whether {@code grow()} can admit workers into a world of this rank's topology at all, checked on every member
     * before rank 0 asks the seed (so that waiting workers stay waiting when no growth could work): null if some
     * growth can, else why not ({@link RelayGrowth#refusal}).
     *
     * @param members the world ranks of the current members
     * @param maxSize setting {@code world.max.size}
     * @return null, or the message of the {@link UnsupportedOperationException} to throw
     */
    public String growRefusal(int[] members, int maxSize) {
        return RelayGrowth.refusal(table, members, maxSize);
    }

    /**
     * This rank closes its world communicator: keeps relaying for the others until every rank has closed (or the
     * deadline passes, or this rank's parent in the close tree goes down), as {@link CloseTree} describes. Call it
     * before {@link #stopRelaying()} on a rank that leaves normally, where each rank closes in its own process; ranks
     * that close one after another on one thread (a test cluster in one JVM) must not call it.
     *
     * @param deadline how long to wait for the other ranks at most
     * @return true if every rank closed; false if this rank leaves without knowing that (logged at WARN)
     */
    public boolean quiesce(Deadline deadline) {
        return RelayNotices.quiesce(this, deadline);
    }

    /** {@return the longest a rank waits in {@link #quiesce} for the others by default: the longer operation timeout} */
    public Duration quiesceTimeout() {
        return forwardTimeout;
    }

    /**
     * A QUIESCE frame arrived from neighbour {@code from} (never relayed: {@link RelayArrivals} refuses it).
     *
     * @param from the neighbour
     * @param q the frame
     * @return {@link Delivery#ACCEPTED}
     * @throws ProtocolException if {@code from} is not this rank's child (closed) or parent (release) in the tree
     */
    Delivery onQuiesce(int from, Message.Quiesce q) {
        return RelayNotices.onQuiesce(this, from, q);
    }

    /** Stops forwarding for others (drops what the relay queue holds); for an owner that closes the links itself. */
    public void stopRelaying() {
        closed = true;
        long held = queue.close();
        if (held > 0) {
            LOG.debug("rank {} stops relaying and drops {} frames it held for other ranks", rank(), held);
        }
    }

    @Override
    public void close() {
        stopRelaying();
        links.close();
    }
}
