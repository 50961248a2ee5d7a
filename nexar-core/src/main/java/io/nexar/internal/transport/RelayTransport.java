package io.nexar.internal.transport;

import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.topology.NeighbourGraph;
import io.nexar.internal.topology.RoutingTable;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.util.Deadline;
import java.time.Duration;
import java.util.List;
import java.util.function.IntPredicate;
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
    // package-private fields and methods below are shared with the collaborators: RelayForwarder (send path),
    // RelayArrivals, RelayNotices (failure notices, close tree), FailureSpread, RelayBridges, RelayGrowth
    private final Transport links;
    final InboundRouter router;
    final Duration forwardTimeout;
    volatile RoutingTable table;
    /**
     * The grown world's routes between {@link #admit(List, int[], Deadline)} and {@link #admitted} (null otherwise):
     * arriving envelopes may follow them already, from ranks that switched first ({@link RelayGrowth}).
     */
    volatile RoutingTable pending;
    /** The routes before the last growth, or null: envelopes sent by ranks that have not switched yet follow them. */
    volatile RoutingTable previous;
    /** Sends frames to neighbours and envelopes to their next hops ({@link RelayForwarder}). */
    final RelayForwarder forwarder;
    volatile CloseTree closeTree;
    /** The failures this rank knows of and tells its neighbours ({@link FailureSpread}). */
    final FailureSpread failures;
    /** Checks arriving envelopes and decodes their inner messages ({@link RelayArrivals}). */
    final RelayArrivals arrivals;
    /** A recovery's rebuilt routes and the link offers of the members this rank bridges to ({@link RelayBridges}). */
    final RelayBridges bridges;
    volatile boolean closed;
    private static final Logger LOG = LoggerFactory.getLogger(RelayTransport.class);

    private RelayTransport(Transport links, InboundRouter router, NexarConfig config, RoutingTable routes) {
        this.links = links;
        this.router = router;
        this.forwardTimeout = config.collectiveTimeout().compareTo(config.p2pTimeout()) > 0
                ? config.collectiveTimeout() : config.p2pTimeout();
        this.table = routes;
        this.forwarder = new RelayForwarder(this, links, config, routes.graph().worldSize());
        this.closeTree = RelayGrowth.closeTree(routes);
        this.failures = new FailureSpread(this);
        this.arrivals = new RelayArrivals(this, config.maxFrameBytes());
        this.bridges = new RelayBridges(this, config.recoveryTimeout().dividedBy(4));
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
        return forwarder.usedLinkTo(peer);
    }

    @Override
    public void send(int peer, Lane lane, Message message, Deadline deadline, ContextSource context) {
        forwarder.send(peer, lane, message, deadline, context);
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
        forwarder.flush(peer, deadline);
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
        failures.beforeFailureSurfaces(failed);
    }

    /**
     * A COLLECTIVE_ABORT arrived from world rank {@code from}: if it names a rank whose failure caused it, this rank
     * knows that rank failed (and tells its neighbours before the abort's failure reaches the program).
     *
     * @param from the world rank it came from (its origin)
     * @param abort the abort
     */
    void onAbort(int from, Message.CollectiveAbort abort) {
        failures.onAbort(from, abort);
    }

    /**
     * The world was rebuilt (automatic recovery): the routes become those of the topology's graph without the ranks
     * that are no longer members. Every survivor applies the same agreed decision, so all of them route the same way
     * whatever each had learnt before (a rank it marked down only because it was cut off is routed through again;
     * a link that is really down is routed around again at its first failed send). A member this rank already knows
     * failed (its death came after the decision's value was fixed) stays dead: the report of it has passed, and
     * nothing else would tell this rank again ({@link RelayBridges#rebuild}).
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
    public void rebuilt(IntPredicate member) {
        bridges.rebuild(links, member);
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

    /** An envelope arrived from neighbour {@code from} on a network transport: {@link RelayArrivals#onRelay}. */
    Delivery onRelay(int from, Message.Relay envelope) {
        return arrivals.onRelay(from, envelope);
    }

    /** An envelope arrived from neighbour {@code from} in-process: {@link RelayArrivals#deliverWaiting}. */
    boolean deliverRelayWaiting(int from, Message.Relay envelope, long deadlineNanos) throws InterruptedException {
        return arrivals.deliverWaiting(from, envelope, deadlineNanos);
    }

    /**
     * The underlying transport formed every link (on a network transport: {@code connect} returned): frames queued
     * for other ranks are forwarded from now on. A neighbour that formed first may relay through this rank while it
     * still connects its other links; those frames wait in the relay queue (bounded) until this call, since a link
     * that is not formed yet cannot take them, and one whose TCP lanes are not set up yet would carry them on
     * another path than the frames after them (out of order).
     */
    public void linksFormed() {
        forwarder.linksFormed();
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
        long held = forwarder.stop();
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
