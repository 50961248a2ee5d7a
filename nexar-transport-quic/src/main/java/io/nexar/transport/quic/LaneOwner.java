package io.nexar.transport.quic;

import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;

/**
 * What a {@link LaneStream} reports to: the QUIC {@link Connection} that owns its four lanes. Called on the lane's
 * event loop unless noted.
 */
interface LaneOwner {

    /** True once the underlying connection is closed (any thread). */
    boolean isDone();

    /** The peer's link, once the peer is identified (any thread). */
    PeerLink link();

    /** The lane's first frame; throws {@link ProtocolException} unless it is the peer's proper Hello. */
    void onHello(LaneStream lane, Message first);

    /** The peer said goodbye on this lane. */
    void onGoodbye(Message.Goodbye goodbye);

    /** Hands a message to the inbound handler. */
    Delivery deliver(Message message);

    /** A protocol error naming the peer, for frame handling to throw. */
    ProtocolException protocolError(String what);

    /** The lane was read to its end (its input finished and everything read was delivered). */
    void laneFinished(LaneStream lane);

    /** Reading the lane failed: a protocol violation by the peer, or an error of the inbound handler. */
    void laneFailed(LaneStream lane, RuntimeException e);

    /** A write on the lane failed. */
    void writeFailed(LaneStream lane, Throwable cause);
}
