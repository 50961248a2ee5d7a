package io.nexar.internal.transport;

import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.topology.RoutingTable;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The send path of a {@link RelayTransport}: a frame for a neighbour goes straight to the underlying transport
 * ({@link #direct}, which records the links used); a frame for another rank is encoded whole into a
 * {@link Message.Relay} envelope and sent to its next hop ({@link #forward}), routing around next hops that turn out
 * dead and waiting out a bounce back to the neighbour an envelope came from. Also owns the {@link RelayQueue} of
 * envelopes held for their next hops on a network transport, which forwards only once the links are formed
 * ({@link #linksFormed}).
 *
 * <p>Threading: called by every sender and lane reader at once; the routes are the relay's (read from its volatile
 * fields), and the wait for new routes uses the relay's monitor, which every change of the routes notifies.
 */
final class RelayForwarder {
    /** Its debug lines are the relay's own (same logger name as before this class was split off). */
    private static final Logger LOG = LoggerFactory.getLogger(RelayTransport.class);

    private final RelayTransport relay;
    private final Transport links;
    private final long maxFrameBytes;
    private final Duration forwardTimeout;
    /** Which peers the underlying transport was asked to reach (tests check they are neighbours). */
    private volatile AtomicIntegerArray linksUsed;
    private final RelayQueue queue;
    /** Completed once the underlying transport's links (bulk lanes included) are all formed. */
    private final CompletableFuture<Void> linksFormed = new CompletableFuture<>();

    RelayForwarder(RelayTransport relay, Transport links, NexarConfig config, int worldSize) {
        this.relay = relay;
        this.links = links;
        this.maxFrameBytes = config.maxFrameBytes();
        this.forwardTimeout = relay.forwardTimeout;
        this.linksUsed = new AtomicIntegerArray(worldSize);
        this.queue = new RelayQueue(links.rank(), config.unexpectedMaxBytes(), this::forwardQueued);
    }

    /**
     * Whether this rank holds a link to {@code peer} in the graph it routes over now.
     *
     * @param routes the routes now
     * @param peer a world rank
     * @return true for a neighbour
     */
    private boolean linked(RoutingTable routes, int peer) {
        return peer < routes.graph().worldSize() && routes.graph().adjacent(relay.rank(), peer);
    }

    /** The routes that reach {@code destination}: the grown world's while a growth is pending and only it has it. */
    private RoutingTable routesTo(int destination) {
        RoutingTable routes = relay.table;
        RoutingTable grown = relay.pending;
        return destination >= routes.graph().worldSize() && grown != null ? grown : routes;
    }

    /** {@link RelayTransport#usedLinkTo}. */
    boolean usedLinkTo(int peer) {
        return linksUsed.get(peer) != 0;
    }

    /** {@link RelayTransport#send}: straight to a neighbour (or this rank), else in an envelope to the next hop. */
    void send(int peer, Lane lane, Message message, Deadline deadline, ContextSource context) {
        RoutingTable routes = routesTo(peer);
        int rank = relay.rank();
        if (peer == rank || linked(routes, peer)) {
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
        var envelope = new Message.Relay(rank, peer, 1, Math.min(255, Math.max(1,
                routes.graph().worldSize() - 1)), frame);
        try {
            forward(envelope, lane, deadline, context, -1);
        } catch (PeerFailedException e) {
            if (e.peer().orElse(-1) == peer || e.context().rank() == rank) {
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
     * takes the route around that neighbour if there is one: the two route over different graphs (one switched to a
     * recovery's bridges first, or learnt of a death first), and sending the frame back would bounce it between them
     * until the hop limit drops it (in-process each bounce is on the sending thread, which may be the one that would
     * switch that rank's routes). With no other route it waits first, at most until the deadline or
     * {@link FailureSpread#NOTICE_GRACE}, for this rank's routes to change; if they stay, the frame goes back all
     * the same (the neighbour's routes are then the older).
     */
    void forward(Message.Relay envelope, Lane lane, Deadline deadline, ContextSource context, int from) {
        int destination = envelope.destination();
        while (true) {
            RoutingTable routes = routesTo(destination);
            int next = destination < routes.graph().worldSize() ? routes.nextHop(destination) : -1;
            if (next >= 0 && next == from) {
                int around = destination == from ? -1 : routes.withDead(from).nextHop(destination);
                if (around >= 0) {
                    next = around; // a route that does not send it straight back: the neighbour's view differs
                } else if (awaitNewRoutes(routes, deadline)) {
                    continue;
                }
            }
            if (next < 0) {
                throw new PeerFailedException(context.withPeer(destination), "cannot complete: rank " + destination
                        + " cannot be reached from rank " + relay.rank() + ": every route to it passes a failed rank");
            }
            try {
                if (LOG.isDebugEnabled()) {
                    LOG.debug("rank {} sends a relayed frame ({} bytes, hop {}) from rank {} to rank {} to rank {}"
                            + " on lane {}", relay.rank(), envelope.frame().byteSize(), envelope.hops(),
                            envelope.origin(), destination, next, lane);
                }
                direct(next, lane, envelope, deadline, context);
                return;
            } catch (PeerFailedException e) {
                if (next == destination || e.peer().orElse(-1) != next) {
                    throw e;
                }
                relay.markDead(next); // the hop died: take the next route (failure detection names it, not the relay)
                // a rebuild may have reset this rank's routes to ranks it had seen die: if that hop was the last
                // way to some ranks, they are cut off (found here, as on the failure itself: RelayNotices)
                RelayNotices.reportCutOff(relay, "failed (" + e.getMessage() + ")");
            }
        }
    }

    /** Waits until the routes are no longer {@code routes} (true) or the bounce wait is over (false). */
    private boolean awaitNewRoutes(RoutingTable routes, Deadline deadline) {
        synchronized (relay) {
            long end = System.nanoTime() + Math.min(deadline.remainingNanos(), FailureSpread.NOTICE_GRACE.toNanos());
            while (relay.table == routes && !relay.closed) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(relay, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return relay.table != routes;
        }
    }

    /**
     * Sends to a neighbour. If its link failed, first waits (briefly, {@link FailureSpread#awaitReason}) for the
     * neighbour's notice of an earlier failure that made it leave, so that what fails here names the cause.
     */
    void direct(int peer, Lane lane, Message message, Deadline deadline, ContextSource context) {
        try {
            directNoWait(peer, lane, message, deadline, context);
        } catch (PeerFailedException e) {
            FailureSpread failures = relay.failures;
            if (peer != relay.rank() && !failures.knows(peer)) {
                failures.awaitReason(peer);
                failures.learned(peer, reasonOf(e, peer), -1);
            }
            throw e;
        }
    }

    /** Sends to a neighbour (or this rank). */
    void directNoWait(int peer, Lane lane, Message message, Deadline deadline, ContextSource context) {
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

    /** {@link RelayTransport#flush}: flushes the link to {@code peer}, or to the next hop towards it. */
    void flush(int peer, Deadline deadline) {
        RoutingTable routes = routesTo(peer);
        int next = peer == relay.rank() || linked(routes, peer) ? peer
                : peer < routes.graph().worldSize() ? routes.nextHop(peer) : -1;
        if (next >= 0) {
            links.flush(next, deadline);
        }
    }

    /** Queues an envelope for its next hop ({@link RelayQueue#offer}); false if the queue has no room. */
    boolean offer(Message.Relay envelope, Lane lane, int from) {
        return queue.offer(envelope, lane, from);
    }

    /** {@link RelayTransport#linksFormed}: queued envelopes are forwarded from now on. */
    void linksFormed() {
        linksFormed.complete(null);
    }

    /** Forwards one queued envelope (a copy) on the relay queue's thread, once the links are formed. */
    private void forwardQueued(Message.Relay envelope, Lane lane, int from) {
        Deadline deadline = Deadline.after(forwardTimeout);
        if (!linksFormed.isDone()) {
            try {
                linksFormed.get(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                throw new OperationTimeoutException(relayContext(envelope), forwardTimeout, "rank " + relay.rank()
                        + "'s own links to form, to forward a frame from rank " + envelope.origin());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommunicatorClosedException(relayContext(envelope), "failed: interrupted while"
                        + " waiting for this rank's links to form");
            }
        }
        forward(envelope, lane, deadline, () -> relayContext(envelope), from);
    }

    /** The context of a failure to forward {@code envelope}: a send to its destination. */
    ErrorContext relayContext(Message.Relay envelope) {
        return new ErrorContext(Operation.SEND, relay.rank(), relay.worldSize(), -1, -1, -1, envelope.destination());
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

    /** Drops what the relay queue holds and takes no more; returns how many frames it dropped. */
    long stop() {
        return queue.close();
    }
}
