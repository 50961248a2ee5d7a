package io.nexar.internal.transport;

import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.protocol.MessageType;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.topology.RoutingTable;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.util.Deadline;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link RelayTransport} does with an arriving envelope: checks it against the relay rules (deliver here,
 * forward, or drop), decodes the inner message of one for this rank once however often it is offered, and hands it
 * to the router or to the {@link RelayForwarder} ({@link #onRelay} on a network transport, {@link #deliverWaiting}
 * in-process).
 *
 * <p>Threading: called by every lane's reader at once; its state is a concurrent map and a counter.
 */
final class RelayArrivals {
    /** Its warnings are the relay's own (same logger name as before this class was split off). */
    private static final Logger LOG = LoggerFactory.getLogger(RelayTransport.class);

    private final RelayTransport relay;
    private final long maxFrameBytes;
    /** The last envelope for this rank decoded per (neighbour, lane) and not yet taken ({@link #decodedOnce}). */
    private final ConcurrentHashMap<Long, Decoded> decoded = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();
    /** Recovery-protocol envelopes that failed the source check, checked again when the routes change. */
    private final HeldEnvelopes held = new HeldEnvelopes();

    RelayArrivals(RelayTransport relay, long maxFrameBytes) {
        this.relay = relay;
        this.maxFrameBytes = maxFrameBytes;
    }

    /** What to do with an arriving envelope ({@code HELD}: kept until the routes change, {@link HeldEnvelopes}). */
    enum Verdict { DELIVER, FORWARD, DROP, HELD }

    /**
     * An envelope arrived from neighbour {@code from} on a transport that cannot wait (network): for this rank, its
     * inner message is handed to the router as if from the origin; for another rank, it is queued for its next hop
     * (bounded; {@code FULL} when the queue has no room, so the transport pauses that neighbour's lane).
     *
     * @param from the neighbour it arrived from
     * @param envelope the envelope; its frame is valid only during this call
     * @return whether it was taken
     * @throws ProtocolException if the envelope breaks a relay rule (see {@link RelayTransport})
     */
    Delivery onRelay(int from, Message.Relay envelope) {
        Verdict v = check(from, envelope, true);
        if (LOG.isDebugEnabled()) {
            LOG.debug("rank {} got a relayed frame ({} bytes, hop {}) from rank {} to rank {} from neighbour {}: {}",
                    relay.rank(), envelope.frame().byteSize(), envelope.hops(), envelope.origin(),
                    envelope.destination(), from, v);
        }
        if (v == Verdict.DELIVER) {
            Delivery d = relay.router.onMessage(envelope.origin(), decodedOnce(from, envelope));
            if (d != Delivery.FULL) {
                forget(from, envelope);
            }
            return d;
        }
        if (v == Verdict.DROP || v == Verdict.HELD) {
            return Delivery.ACCEPTED;
        }
        return relay.forwarder.offer(next(envelope), laneOf(envelope), from) ? Delivery.ACCEPTED : Delivery.FULL;
    }

    /**
     * An envelope arrived from neighbour {@code from} on a transport whose sender waits (in-process): delivered
     * here, or forwarded to the next hop on this thread, waiting for room at most until the deadline.
     *
     * @param from the neighbour it arrived from
     * @param envelope the envelope; its frame is valid only during this call
     * @param deadlineNanos when to give up ({@link System#nanoTime()})
     * @return false if the deadline passed first
     * @throws ProtocolException if the envelope breaks a relay rule (see {@link RelayTransport})
     * @throws PeerFailedException if the destination cannot be reached
     * @throws InterruptedException if interrupted while waiting
     */
    boolean deliverWaiting(int from, Message.Relay envelope, long deadlineNanos) throws InterruptedException {
        return deliverWaiting(from, envelope, deadlineNanos, true);
    }

    private boolean deliverWaiting(int from, Message.Relay envelope, long deadlineNanos, boolean mayHold)
            throws InterruptedException {
        Verdict v = check(from, envelope, mayHold);
        if (v == Verdict.DELIVER) {
            Message inner = decodedOnce(from, envelope);
            boolean taken = relay.router.deliverWaiting(envelope.origin(), inner, deadlineNanos);
            if (taken) {
                forget(from, envelope);
            }
            return taken;
        }
        if (v == Verdict.DROP || v == Verdict.HELD) {
            return true;
        }
        long left = deadlineNanos - System.nanoTime();
        var deadline = new Deadline(Duration.ofNanos(Math.max(0, left)), deadlineNanos);
        RelayForwarder forwarder = relay.forwarder;
        try {
            forwarder.forward(next(envelope), laneOf(envelope), deadline, () -> forwarder.relayContext(envelope),
                    from);
            return true;
        } catch (OperationTimeoutException e) {
            return false;
        }
    }

    /**
     * Checks an arriving envelope. Structural violations (a non-neighbour, ranks outside the world) are protocol
     * errors of the neighbour; a failed source check or an exhausted hop limit drops the frame (logged), since ranks
     * whose views of the dead set differ for a moment can route a legitimate frame that way. A frame of the recovery
     * protocol that fails the source check is held instead if {@code mayHold} ({@link HeldEnvelopes}): a survivor
     * that applied a recovery's decision first routes it over a bridge this rank's routes do not know yet.
     */
    Verdict check(int from, Message.Relay envelope, boolean mayHold) {
        RoutingTable routes = relay.table;
        int rank = relay.rank();
        // around a growth, ranks that switched to the grown routes and ranks that did not yet both route legitimately
        // (RelayGrowth): an envelope that does not fit the routes in use is checked against the other ones
        RoutingTable pending = relay.pending;
        RoutingTable other = pending != null ? pending : relay.previous;
        if (other != null && !fits(routes, rank, from, envelope) && fits(other, rank, from, envelope)) {
            routes = other;
        }
        int n = routes.graph().worldSize();
        if (from >= n || !routes.graph().adjacent(from, rank)) {
            throw relay.violation(from, "sent a RELAY frame but is not a neighbour of rank " + rank + " in "
                    + routes.graph().topology());
        }
        if (envelope.origin() >= n || envelope.destination() >= n) {
            throw relay.violation(from, "relayed a frame from rank " + envelope.origin() + " to rank "
                    + envelope.destination() + ", outside the world of " + n);
        }
        boolean bounced = envelope.origin() == rank; // our own frame, sent back by a rank with an older view
        if (!bounced && !routes.mayForward(envelope.origin(), from, envelope.hops())) {
            if (mayHold && HeldEnvelopes.recoveryFrame(envelope)) {
                if (!held.hold(from, envelope)) {
                    dropped.incrementAndGet();
                }
                LOG.debug("rank {} holds a frame relayed by rank {} from rank {} to rank {} until its routes change:"
                        + " rank {}'s routes to it do not pass through rank {} yet", rank, from, envelope.origin(),
                        envelope.destination(), envelope.origin(), from);
                return Verdict.HELD;
            }
            return drop(from, envelope, "claims to come from rank " + envelope.origin() + ", whose routes to rank "
                    + rank + " do not pass through rank " + from);
        }
        if (envelope.destination() == rank) {
            return Verdict.DELIVER;
        }
        if (envelope.hops() >= envelope.hopLimit()) {
            return drop(from, envelope, "reached its hop limit " + envelope.hopLimit());
        }
        return Verdict.FORWARD;
    }

    /**
     * The routes changed (a recovery's rebuild switched them): the envelopes held since are checked again against
     * them and delivered or forwarded if they pass now, dropped if not, on a virtual thread of their own (a forward
     * may wait for room).
     */
    void releaseHeld() {
        var all = held.takeAll();
        if (all.isEmpty()) {
            return;
        }
        Thread.ofVirtual().name("nexar-relay-held-r" + relay.rank()).start(() -> {
            for (HeldEnvelopes.Held h : all) {
                try {
                    deliverWaiting(h.from(), h.envelope(), System.nanoTime() + relay.forwardTimeout.toNanos(), false);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (RuntimeException e) { // the relay's ordinary failures of a frame: logged, as a drop
                    LOG.debug("rank {}: a held frame from rank {} could not be passed on: {}", relay.rank(),
                            h.envelope().origin(), e.toString());
                }
            }
        });
    }

    /** Whether an envelope from neighbour {@code from} passes every check of {@link #check} under {@code routes}. */
    private static boolean fits(RoutingTable routes, int rank, int from, Message.Relay envelope) {
        int n = routes.graph().worldSize();
        return from < n && rank < n && envelope.origin() < n && envelope.destination() < n
                && routes.graph().adjacent(from, rank)
                && (envelope.origin() == rank || routes.mayForward(envelope.origin(), from, envelope.hops()));
    }

    private Verdict drop(int from, Message.Relay envelope, String why) {
        dropped.incrementAndGet();
        LOG.warn("rank {} dropped a frame relayed by rank {} from rank {} to rank {}: it {}", relay.rank(), from,
                envelope.origin(), envelope.destination(), why);
        return Verdict.DROP;
    }

    /** {@return how many relayed frames this rank dropped (failed source check or hop limit)} */
    long droppedFrames() {
        return dropped.get();
    }

    /**
     * The inner message of an envelope for this rank, decoded once per envelope: a transport offers an envelope that
     * was refused ({@code FULL}) again, the same object, and the receive sides recognise a message they deferred by
     * its identity ({@code Deferrals}); a fresh decode at each offer looked like a new chunk every time, so a deferred
     * relayed chunk was never stored and its paused lane (which also carries the neighbour's own frames) stayed paused.
     */
    Message decodedOnce(int from, Message.Relay envelope) {
        long key = decodedKey(from, envelope);
        Decoded d = decoded.get(key);
        if (d != null && d.envelope() == envelope) {
            return d.inner();
        }
        Message inner = inner(envelope);
        decoded.put(key, new Decoded(envelope, inner));
        return inner;
    }

    /** The envelope's inner message was taken: its decode is no longer kept. */
    void forget(int from, Message.Relay envelope) {
        long key = decodedKey(from, envelope);
        Decoded d = decoded.get(key);
        if (d != null && d.envelope() == envelope) {
            decoded.remove(key, d);
        }
    }

    /** One entry per neighbour and lane: each lane's reader offers its own refused envelope again. */
    private static long decodedKey(int from, Message.Relay envelope) {
        return (long) from * Lane.values().length + laneOf(envelope).ordinal();
    }

    /** An envelope and its decoded inner message (a view of the envelope's frame, valid as long as it is). */
    private record Decoded(Message.Relay envelope, Message inner) {
    }

    private Message inner(Message.Relay envelope) {
        Message inner;
        try {
            inner = MessageCodec.decode(envelope.origin(), envelope.frame(), maxFrameBytes);
        } catch (ProtocolException e) {
            throw MessageCodec.seenBy(e, relay.rank(), relay.worldSize());
        }
        if (inner instanceof Message.Relay || inner instanceof Message.Hello || inner instanceof Message.Quiesce
                || inner.type().code() >= MessageType.JOIN_CHALLENGE.code() && inner.type() != MessageType.PEER_TABLE) {
            // a PEER_TABLE travels in a relay only as a member's link offer (RelayBridges, docs/protocol.md 4.11)
            throw relay.violation(envelope.origin(), "relayed a " + inner.type() + " frame, which never travels in a"
                    + " relay");
        }
        return inner;
    }

    /** The envelope as its next hop receives it: one hop more. */
    static Message.Relay next(Message.Relay envelope) {
        return new Message.Relay(envelope.origin(), envelope.destination(), envelope.hops() + 1,
                envelope.hopLimit(), envelope.frame());
    }

    /** The lane of the inner frame's type, as its origin's sender picks it. */
    static Lane laneOf(Message.Relay envelope) {
        int code = envelope.frame().get(java.lang.foreign.ValueLayout.JAVA_BYTE, WireFormat.TYPE_OFFSET) & 0xFF;
        MessageType type = MessageType.fromCode(code);
        return switch (type) {
            case DATA -> Lane.P2P;
            case COLLECTIVE, COLLECTIVE_ABORT -> Lane.COLLECTIVE;
            case RPC_REQUEST, RPC_RESPONSE, RPC_CANCEL -> Lane.RPC;
            case null, default -> Lane.CONTROL;
        };
    }
}
