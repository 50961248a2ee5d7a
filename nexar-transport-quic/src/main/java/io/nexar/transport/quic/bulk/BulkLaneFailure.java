package io.nexar.transport.quic.bulk;

import io.nexar.ProtocolException;
import io.nexar.internal.protocol.MessageCodec;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a failed read or write of a {@link BulkConnection} means, and what follows: nothing (the connection was closed
 * on purpose), the peer's QUIC connection given up at once (this rank is leaving: no Goodbye will come), a fall-back
 * to QUIC (during setup), or the loss of the peer (after setup; an abrupt end first waits a grace period for the QUIC
 * connection's own, better, reason). One per connection.
 */
final class BulkLaneFailure {
    private static final Logger LOG = LoggerFactory.getLogger(BulkConnection.class);
    /** How long an abrupt end of the socket waits for the QUIC connection's own close reason. */
    private static final long ABRUPT_END_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final BulkConnection c;
    private final AtomicBoolean abruptEnd = new AtomicBoolean();

    BulkLaneFailure(BulkConnection c) {
        this.c = c;
    }

    /** Reading failed (the reader thread, or a caller polling the lane), or setup did. */
    void readFailed(Exception e) {
        if (c.isClosed()) {
            return;
        }
        if (c.isReady() && c.host().isClosing()) {
            if (e instanceof IOException io) {
                abandonWhileLeaving("ended its bulk lane without a goodbye while this rank was leaving ("
                        + io.getMessage() + ")", io);
            }
            c.closeSocket(); // this rank is leaving: an abrupt end of the peer's output is no failure to report
            return;
        }
        if (!c.isReady() && c.dialTarget() == null && c.link() == null && e instanceof java.io.EOFException) {
            // ended before it said who it is: no pair's lane, but a peer's formation probe (ListenerProbe) or a scan
            LOG.debug("rank {}: a bulk connection from {} ended before it identified itself ({})", c.host().rank(),
                    c.remote(), e.getMessage());
            c.fallBack(null);
            c.closeSocket();
            return;
        }
        if (!c.isReady()) {
            c.fallBack("failed during setup: " + e.getMessage());
            c.closeSocket();
            return;
        }
        if (e instanceof IOException io) {
            // the usual cause: the kernel closed a killed process's socket, with no TLS close_notify and no GOODBYE
            endedAbruptly("ended its bulk lane without a goodbye (its process exited or was killed; "
                    + io.getMessage() + ")", io);
            return;
        }
        if (e instanceof ProtocolException pe) {
            ProtocolException seen = MessageCodec.seenBy(pe, c.host().rank(), c.host().worldSize());
            c.lose("broke the protocol: " + seen.getMessage(), seen);
        } else {
            c.lose("was disconnected after an error on its bulk lane: " + e, e);
        }
    }

    /** Writing failed (the writer thread, or a sender filling an output buffer). */
    void writeFailed(Exception e) {
        if (c.isReady() && !c.isClosed() && c.host().isClosing() && e instanceof IOException io) {
            abandonWhileLeaving("was disconnected while this rank was leaving (writing its bulk lane failed: " + e
                    + ")", io);
            return;
        }
        if (!c.isReady() || c.isClosed() || c.host().isClosing() || c.link().isDown()) {
            return;
        }
        String why = "was disconnected (writing its bulk lane failed: " + e + ")";
        if (e instanceof IOException io) {
            endedAbruptly(why, io);
        } else {
            c.lose(why, e);
        }
    }

    /**
     * The socket ended abruptly (no TLS close_notify, a reset, or an end within a frame). If the peer's QUIC
     * connection is closing too, its reason is the better one: it arrives within a grace period and closes this
     * connection. Otherwise (the peer crashed) the peer is lost once the period ends.
     */
    private void endedAbruptly(String why, IOException e) {
        if (abruptEnd.compareAndSet(false, true)) {
            // Not "if this connection is still open": its reader and writer may both have ended within the grace
            // (a failed read and a failed write), which closes it, and the peer must still be reported.
            c.endpoint().schedule(() -> {
                if (c.host().isClosing()) {
                    abandonWhileLeaving(why, e); // this rank began to leave within the grace period
                } else if (!c.link().isDown()) {
                    c.lose(why, e);
                } else {
                    c.close(); // the peer went down for a better reason meanwhile: only release this lane
                }
            }, ABRUPT_END_GRACE_NANOS);
        }
    }

    /**
     * This rank is leaving and the peer's bulk lane broke (an end without close_notify, a reset, a failed write): the
     * peer is gone and will never answer the Goodbye, so its QUIC connection is closed now. Without this, the leave
     * waited for that connection until the end of its share of {@code close.timeout} (4 s by default): a survivor
     * whose first sign of a killed peer was a failed write ("Broken pipe") and which then closed within the grace
     * period exited 4.7-5.6 s after the kill (issue 16).
     */
    private void abandonWhileLeaving(String why, IOException e) {
        LOG.debug("rank {}: rank {} {}; not waiting for its goodbye", c.host().rank(), c.link().peer(), why);
        c.link().quicFailed(why, e);
    }
}
