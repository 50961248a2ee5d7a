package io.nexar.transport.quic;

import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.protocol.Message;
import io.nexar.transport.quic.bulk.BulkConnection;

/**
 * The orderly end of one QUIC {@link Connection}, from both sides. The peer's: a Goodbye (a normal close, or a rank
 * that failed) makes sends to it fail at once, but the peer is reported down only when every lane (and its bulk
 * lanes) has been read to its end, so messages it sent before the Goodbye are delivered first; a lane that ends
 * without a Goodbye loses the peer. This rank's ({@link #leave}): a Goodbye, then the end of every lane.
 *
 * <p>Threading: the connection's event loop only, like the connection's other state.
 */
final class Goodbyes {
    private final Connection c;
    /** Why the peer is leaving (from its Goodbye), or null while it is not. */
    private String leavingWhy;
    private int finishedLanes;

    Goodbyes(Connection c) {
        this.c = c;
    }

    /** Why the peer is leaving, from its Goodbye; null if it did not say goodbye. */
    String leavingWhy() {
        return leavingWhy;
    }

    /** The peer said goodbye (on any lane). */
    void onGoodbye(Message.Goodbye g) {
        String detail = g.detail();
        switch (g.reason()) {
            case CLOSE, FAILURE -> {
                // Sends to it fail now; receivers hear of it once every lane is read to its end, so what it sent
                // before it left (or failed) is delivered first. A failing peer's lanes end at once too.
                leavingWhy = g.reason().describe(detail);
                c.link.down(leavingWhy, null, false);
                checkDrained();
            }
            case PROTOCOL_ERROR -> {
                c.link.down(g.reason().describe(detail), null, !c.transport.isClosing());
                c.closeWith(GoodbyeReason.CLOSE.code(), "", null);
            }
        }
    }

    /** A lane was read to its end (FIN, or its stream closed). */
    void laneFinished(LaneStream lane) {
        finishedLanes++;
        if (c.isDone() || !c.channel.isOpen()) {
            return; // the connection is closing: onClosed reports
        }
        if (leavingWhy == null && !c.transport.isClosing()) {
            c.fail("closed lane " + lane.name() + " without saying goodbye", null);
            return;
        }
        checkDrained();
    }

    /** Reports a leaving peer once all it sent was read: every lane, and its bulk lane if it has one. */
    void checkDrained() {
        if (leavingWhy != null && finishedLanes == Connection.LANES && c.link.bulkDrained() && !c.isDone()) {
            c.link.report(null);
            c.closeWith(GoodbyeReason.CLOSE.code(), "", null);
        }
    }

    /**
     * This transport is closing (normally, or because its rank failed): say Goodbye, then end every lane (and the
     * bulk lanes); the peer closes the connection once it has read them, or the transport closes it when
     * {@code close.timeout} runs out.
     */
    void leave(GoodbyeReason reason, String detail) {
        if (c.isDone()) {
            return;
        }
        String text = Texts.truncate(detail);
        if (!c.isReady()) {
            c.closeWith(reason.code(), text, null);
            return;
        }
        var goodbye = new Message.Goodbye(reason, text);
        for (int i = 0; i < Connection.LANES; i++) {
            // on every lane: under loss a lane's FIN can overtake the control lane's GOODBYE, and a lane that ends
            // without one means a lost peer
            c.lanes.get(i).writeNow(goodbye);
            c.lanes.get(i).finishOutput();
        }
        for (BulkConnection bulk : c.link.bulks()) {
            bulk.writeNow(new Message.Goodbye(reason, text)); // a TCP connection that ends without it was cut
            bulk.finishOutput();
        }
    }
}
