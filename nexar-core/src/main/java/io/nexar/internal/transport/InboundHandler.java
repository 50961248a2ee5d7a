package io.nexar.internal.transport;

import io.nexar.internal.protocol.Message;

/** Receives what a {@link Transport} delivers. Called on transport threads; never blocks. */
public interface InboundHandler {

    /** What the handler did with an inbound message. */
    enum Delivery {
        /** Taken; the message (and its payload view) may be released. */
        ACCEPTED,
        /**
         * Not taken: there is no room for it now. The transport keeps it, stops reading from that peer's lane, and
         * offers it again later (see {@link #deliverWaiting}).
         */
        FULL
    }

    /**
     * Handles one message from {@code peer}. The message's payload is valid only during this call.
     *
     * @throws io.nexar.ProtocolException if the message contradicts earlier ones from the same peer
     */
    Delivery onMessage(int peer, Message message);

    /**
     * Delivers {@code message}, waiting while it is refused with {@link Delivery#FULL}, at most until
     * {@code deadlineNanos} ({@link System#nanoTime()}). For transports whose sender can wait (the in-process
     * transport); network transports pause the lane and retry {@link #onMessage} instead.
     *
     * @return false if the deadline passed before the message was taken
     */
    boolean deliverWaiting(int peer, Message message, long deadlineNanos) throws InterruptedException;

    /**
     * Claims the destination of a large chunk whose header ({@code header}, payload empty) has been read and whose
     * {@code payloadBytes} bytes follow, so that the transport can write them there as they arrive
     * ({@link PayloadSink}). Returns null if the chunk cannot be written now (its operation or round is not open, or
     * it does not fit the schedule): the transport then reads the whole frame and delivers it with
     * {@link #onMessage}, which handles every such case. Never blocks.
     */
    default PayloadSink claim(int peer, Message.Collective header, long payloadBytes) {
        return null;
    }

    /**
     * Claims the destination of a large point-to-point chunk whose header ({@code header}, payload empty) has been
     * read and whose {@code payloadBytes} bytes follow: the buffer of the receive its message is bound to, or can be
     * bound to now, at the chunk's offset. Returns null if the chunk cannot be written there now (no receive takes it
     * yet: it goes to the unexpected store) or breaks a rule: the transport then reads the whole frame and delivers it
     * with {@link #onMessage}, which handles every such case. Never blocks.
     *
     * @param peer the world rank the chunk comes from
     * @param header the chunk's header, its payload empty
     * @param payloadBytes the size of the payload that follows
     * @return where to write the payload, or null
     */
    default PayloadSink claim(int peer, Message.Data header, long payloadBytes) {
        return null;
    }

    /**
     * The peer failed, left or broke the protocol; no message from it follows. Idempotent.
     *
     * @param why completes "rank N ...", for example {@code left (it closed its communicator)}
     * @param cause the underlying error, or null
     */
    void onPeerDown(int peer, String why, Throwable cause);
}
