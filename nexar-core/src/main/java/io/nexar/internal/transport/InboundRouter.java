package io.nexar.internal.transport;

import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.ProtocolException;
import io.nexar.internal.cluster.Membership;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.rpc.RpcEngine;
import java.util.List;

/**
 * The process's one {@link InboundHandler}: point-to-point traffic goes to the {@link Mailbox}, collective traffic
 * to the {@link CollectiveEngine}, remote calls to the {@link RpcEngine}; Goodbye and peer failures reach all three
 * (peer failures, aborts and closes through the one {@link ReceiveSide} contract). Every transport hands its inbound
 * messages here, so the {@link Transport} and {@link InboundHandler} interfaces stay as they are.
 */
public final class InboundRouter implements InboundHandler {
    private final Mailbox mailbox;
    private final CollectiveEngine engine;
    private final RpcEngine rpc = new RpcEngine();
    private volatile Membership membership;
    private volatile HangReports hangs;
    /** The relaying transport of a sparse topology, or null on a full mesh. */
    private volatile RelayTransport relay;
    /** The transport this router serves, named by its protocol errors; null until {@link #servedBy}. */
    private volatile Transport end;

    /** The receive sides, in the order every peer-down, abort and close reaches them. */
    private final List<ReceiveSide> sides;

    /** Routes to {@code mailbox} and {@code engine}. */
    public InboundRouter(Mailbox mailbox, CollectiveEngine engine) {
        this.mailbox = mailbox;
        this.engine = engine;
        this.sides = List.of(engine, mailbox, rpc);
    }

    /** Sends failures and agreement messages to {@code m} from now on (once, before the transport connects). */
    public void attach(Membership m) {
        membership = m;
    }

    /**
     * Answers status questions and reports hangs through {@code h} from now on (once, when the world communicator is
     * made); both receive sides report their stalled waits to it.
     */
    public void attach(HangReports h) {
        hangs = h;
        engine.reportsHangsTo(h);
        mailbox.reportsHangsTo(h);
    }

    /**
     * Protocol errors of both receive sides name {@code t}'s rank and world size from now on (once, by the
     * transport's constructor: the router is built before the transport it serves).
     *
     * @param t the transport whose inbound messages this router handles
     */
    public void servedBy(Transport t) {
        end = t;
        mailbox.servedBy(t);
    }

    /**
     * Where a protocol violation by a peer was seen: decoding on the local rank of {@code end}, in its world.
     *
     * @param end the transport the violation arrived on, or null if not known (then only the peer is named)
     * @param communicator the communicator the offending frame names, or -1
     * @param sequence the operation sequence number the offending frame names, or -1
     * @param peer the world rank that sent it
     * @return the context of the {@link ProtocolException} to raise
     */
    public static ErrorContext decoding(Transport end, int communicator, long sequence, int peer) {
        return end == null ? new ErrorContext(Operation.DECODE, -1, -1, communicator, sequence, -1, peer)
                : new ErrorContext(Operation.DECODE, end.rank(), end.worldSize(), communicator, sequence, -1, peer);
    }

    /** Hands relay envelopes to {@code r} from now on (sparse topologies; once, before the transport connects). */
    void attach(RelayTransport r) {
        relay = r;
    }

    /**
     * The transport to build communicators on: the {@link RelayTransport} attached to this router (sparse
     * topologies), else {@code links}.
     *
     * @param links the process's transport
     * @return the relaying transport over it, or {@code links} itself
     */
    public Transport relayOr(Transport links) {
        RelayTransport r = relay;
        return r != null ? r : links;
    }

    /** The hang reports of this process, or null before {@link #attach(HangReports)}. */
    public HangReports hangReports() {
        return hangs;
    }

    /** Both receive sides poll {@code p} before they sleep (see {@link Progress}). Once, before any operation. */
    public void drivenBy(Progress p) {
        mailbox.drivenBy(p);
        engine.drivenBy(p);
    }

    /** The membership service, or null if none is attached. */
    public Membership membership() {
        return membership;
    }

    /**
     * Fails every pending receive and collective (recovery policy abort, or this process excluded).
     *
     * @param peer the world rank to blame, or -1
     * @param why completes "cannot complete: ..."
     */
    public void abortAll(int peer, String why) {
        for (ReceiveSide side : sides) {
            side.abortAll(peer, why);
        }
    }

    /**
     * Retires communicator {@code group} (automatic recovery; see {@link CollectiveEngine#retire}): its collectives
     * that can still finish run on, the others fail; its pending receives and calls fail.
     *
     * @param failedWorld the world ranks that failed or left
     */
    public void retireCommunicator(io.nexar.internal.collective.Group group, int[] failedWorld, String why) {
        for (ReceiveSide side : sides) {
            side.retire(group, failedWorld, why);
        }
    }

    /** The point-to-point receive side. */
    public Mailbox mailbox() {
        return mailbox;
    }

    /** The collective receive side. */
    public CollectiveEngine engine() {
        return engine;
    }

    /** The remote procedure calls of this process. */
    public RpcEngine rpc() {
        return rpc;
    }

    @Override
    public PayloadSink claim(int peer, Message.Collective header, long payloadBytes) {
        return engine.claim(peer, header, payloadBytes);
    }

    @Override
    public PayloadSink claim(int peer, Message.Data header, long payloadBytes) {
        return mailbox.claim(peer, header, payloadBytes);
    }

    @Override
    public Delivery onMessage(int peer, Message message) {
        return switch (message) {
            case Message.Collective c -> engine.onMessage(peer, c);
            case Message.CollectiveAbort a -> {
                RelayTransport r = relay;
                if (r != null) { // first: the failed rank it names is told on before the program sees the failure
                    r.onAbort(peer, a);
                }
                yield engine.onMessage(peer, a);
            }
            case Message.Agree a -> {
                Membership m = membership;
                if (m != null) {
                    m.onAgree(peer, a);
                }
                yield Delivery.ACCEPTED;
            }
            case Message.Status st -> {
                HangReports h = hangs;
                if (h != null) {
                    h.onStatus(peer, st);
                }
                yield Delivery.ACCEPTED;
            }
            case Message.RpcRequest _, Message.RpcResponse _, Message.RpcCancel _ -> rpc.onMessage(peer, message);
            case Message.Goodbye g -> {
                goodbye(peer, g);
                yield mailbox.onMessage(peer, g);
            }
            case Message.Relay r -> relayOf(peer).onRelay(peer, r);
            case Message.PeerDown d -> relayOf(peer).onPeerDownReported(peer, d);
            case Message.Quiesce q -> relayOf(peer).onQuiesce(peer, q);
            case io.nexar.internal.protocol.EnrolmentMessage.PeerTable t -> relayOf(peer).onLinkOffer(peer, t);
            default -> mailbox.onMessage(peer, message);
        };
    }

    @Override
    public boolean deliverWaiting(int peer, Message message, long deadlineNanos) throws InterruptedException {
        return switch (message) {
            case Message.Collective c -> engine.deliverWaiting(peer, c, deadlineNanos);
            case Message.CollectiveAbort a -> {
                RelayTransport r = relay;
                if (r != null) {
                    r.onAbort(peer, a);
                }
                yield engine.deliverWaiting(peer, a, deadlineNanos);
            }
            case Message.Agree a -> onMessage(peer, a) == Delivery.ACCEPTED;
            case Message.Status st -> onMessage(peer, st) == Delivery.ACCEPTED;
            case Message.RpcRequest _, Message.RpcResponse _, Message.RpcCancel _ ->
                    rpc.onMessage(peer, message) == Delivery.ACCEPTED;
            case Message.Goodbye g -> {
                goodbye(peer, g);
                yield mailbox.deliverWaiting(peer, g, deadlineNanos);
            }
            case Message.Relay r -> relayOf(peer).deliverRelayWaiting(peer, r, deadlineNanos);
            case Message.PeerDown d -> relayOf(peer).onPeerDownReported(peer, d) == Delivery.ACCEPTED;
            case Message.Quiesce q -> relayOf(peer).onQuiesce(peer, q) == Delivery.ACCEPTED;
            case io.nexar.internal.protocol.EnrolmentMessage.PeerTable t ->
                    relayOf(peer).onLinkOffer(peer, t) == Delivery.ACCEPTED;
            default -> mailbox.deliverWaiting(peer, message, deadlineNanos);
        };
    }

    private RelayTransport relayOf(int peer) {
        RelayTransport r = relay;
        if (r == null) {
            throw new ProtocolException(decoding(end, -1, -1, peer), "failed: rank " + peer + " sent a RELAY,"
                    + " PEER_DOWN or QUIESCE frame, but this process runs topology=full-mesh");
        }
        return r;
    }

    /**
     * A peer's GOODBYE (it closed or failed): the engine and RPC learn of it here; the mailbox takes the message
     * itself, after the messages the peer sent before it.
     */
    private void goodbye(int peer, Message.Goodbye g) {
        String why = g.reason().describe(g.detail());
        engine.onPeerDown(peer, why, null);
        rpc.onPeerDown(peer, why, null);
    }

    @Override
    public void onPeerDown(int peer, String why, Throwable cause) {
        RelayTransport r = relay;
        // first: a send retried on the failure must already route around the dead rank
        boolean news = r != null && r.onPeerDown(peer, why, cause);
        Membership m = membership;
        if (m != null) { // first: an operation failed below and retried at once must see a recovery under way
            m.beforePeerDown(peer, cause);
        }
        for (ReceiveSide side : sides) {
            side.onPeerDown(peer, why, cause);
        }
        if (m != null) {
            m.onPeerDown(peer, why, cause);
        }
        if (news) { // last: the ranks its loss cut off are reported after it, so failures name the cause first
            r.reportCutOff(why);
        }
    }

    /**
     * Whether world rank {@code peer} was reported down by this process only because no route reached it (sparse
     * topologies: {@code RelayNotices.reportCutOff}), and the routes reach it now (a recovery's rebuild bridged the
     * hole after the report was made): if so, both receive sides forget that it was down (their operations with it
     * are no longer refused). A rank cut off while its decision was not applied yet is reached again once it is.
     *
     * @param peer a world rank
     * @return true if that report is stale (the membership forgets it too)
     */
    public boolean reachesAgain(int peer) {
        RelayTransport r = relay;
        if (r == null || !r.bridges.reachesAgain(peer)) {
            return false;
        }
        for (ReceiveSide side : sides) {
            side.forgetDown(peer);
        }
        return true;
    }

    /**
     * A recovery's rebuild switched the relay's routes ({@code RelayBridges.rebuild}): the ranks this process had
     * found cut off that they reach again are forgotten as down here ({@link #reachesAgain}) and by the membership.
     */
    void routesRebuilt() {
        RelayTransport r = relay;
        boolean any = false;
        for (int peer : r.bridges.reportedCutOff()) {
            any |= reachesAgain(peer);
        }
        Membership m = membership;
        if (any && m != null) {
            m.reachableAgain();
        }
    }

    /** Fails every pending receive and collective and refuses new ones. Idempotent. */
    public void close(String reason) {
        Membership m = membership;
        if (m != null) {
            m.close();
        }
        for (ReceiveSide side : sides) {
            side.close(reason);
        }
        HangReports h = hangs;
        if (h != null) {
            h.close();
        }
    }
}
