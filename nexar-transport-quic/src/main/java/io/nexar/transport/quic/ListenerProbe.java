package io.nexar.transport.quic;

import io.nexar.transport.quic.bulk.BulkConnection;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;

/**
 * Whether a peer's process still holds its TCP bulk-lane listener, asked during formation of a peer that was not
 * reached (issue 16). The kernel completes a TCP handshake to a listening socket on its own, however starved of CPU
 * the process is, and refuses one to a port that nobody holds any more, at once, because the kernel closed a dead
 * process's sockets. So the answer tells a slow peer from a gone one without the peer doing anything.
 *
 * <p>The probe connects and closes at once, without a byte; the peer's bulk endpoint takes it for an accepted
 * connection that ended before it said who it is, and notes it at DEBUG only ({@link BulkConnection}).
 */
final class ListenerProbe {
    /** What a probe found. */
    enum Answer {
        /** The kernel accepted the connection: the process holds its listener (it may be slow or frozen). */
        LISTENING,
        /** The connection was refused: nobody holds the port, the process is gone. */
        REFUSED,
        /** No answer within the timeout, or another error (host down, filtered): nothing is proven. */
        UNKNOWN
    }

    private ListenerProbe() {
    }

    /**
     * Probes {@code address}.
     *
     * @param address the peer's bulk-lane address from the peer table
     * @param timeout how long the connection may take
     * @return what the probe found
     */
    static Answer probe(InetSocketAddress address, Duration timeout) {
        try (var socket = new Socket()) {
            socket.connect(address, (int) Math.clamp(timeout.toMillis(), 1, Integer.MAX_VALUE));
            return Answer.LISTENING;
        } catch (ConnectException refused) {
            return refused.getMessage() != null && refused.getMessage().contains("refused") ? Answer.REFUSED
                    : Answer.UNKNOWN;
        } catch (IOException | RuntimeException e) {
            return Answer.UNKNOWN;
        }
    }
}
