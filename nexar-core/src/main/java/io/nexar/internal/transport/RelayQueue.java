package io.nexar.internal.transport;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frames a relay holds for their next hops, on transports whose receiving thread cannot wait for the next link
 * (network). Bounded in bytes: when full, {@link #offer} refuses and the transport stops reading the neighbour that
 * sent the frame until it is taken (back-pressure hop by hop); a frame is taken if the queue is empty, whatever its
 * size, so a relay always makes progress. One virtual thread ({@code nexar-relay-r<rank>}) forwards the frames in the
 * order they arrived, which keeps each (origin, destination, lane)'s order.
 */
final class RelayQueue {
    /** Forwards one frame; may block (its link back-pressures). */
    interface Forwarder {
        void forward(Message.Relay envelope, Lane lane, int from);
    }

    private record Held(Message.Relay envelope, Lane lane, int from) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(RelayQueue.class);
    private final int rank;
    private final long maxBytes;
    private final Forwarder forwarder;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private long heldBytes;
    private boolean closed;
    private Thread thread;

    RelayQueue(int rank, long maxBytes, Forwarder forwarder) {
        this.rank = rank;
        this.maxBytes = maxBytes;
        this.forwarder = forwarder;
    }

    /**
     * Takes a copy of {@code envelope} to forward, if there is room.
     *
     * @return false if the queue is full (or closed); offer it again later
     */
    synchronized boolean offer(Message.Relay envelope, Lane lane, int from) {
        long size = envelope.frame().byteSize();
        if (closed || !held.isEmpty() && heldBytes + size > maxBytes) {
            return false;
        }
        MemorySegment copy = MemorySegment.ofArray(new byte[Math.toIntExact(size)]);
        Segments.copy(envelope.frame(), 0, copy, 0, size);
        held.add(new Held(new Message.Relay(envelope.origin(), envelope.destination(), envelope.hops(),
                envelope.hopLimit(), copy), lane, from));
        heldBytes += size;
        if (thread == null) {
            thread = Thread.ofVirtual().name("nexar-relay-r" + rank).start(this::run);
        }
        notifyAll();
        return true;
    }

    /** {@return the bytes held now} */
    synchronized long heldBytes() {
        return heldBytes;
    }

    private void run() {
        while (true) {
            Held next;
            synchronized (this) {
                while (held.isEmpty() && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                next = held.peek();
            }
            try {
                forwarder.forward(next.envelope(), next.lane(), next.from());
            } catch (RuntimeException e) {
                // the origin learns of it through failure detection or its own timeout
                LOG.warn("rank {} dropped a relayed frame from rank {} to rank {}: {}", rank, next.envelope().origin(),
                        next.envelope().destination(), e.toString());
            }
            synchronized (this) {
                held.poll();
                heldBytes -= next.envelope().frame().byteSize();
            }
        }
    }

    /**
     * Drops what is held and stops the thread. Idempotent.
     *
     * @return how many frames were dropped
     */
    synchronized int close() {
        closed = true;
        int dropped = held.size();
        held.clear();
        heldBytes = 0;
        notifyAll();
        return dropped;
    }
}
