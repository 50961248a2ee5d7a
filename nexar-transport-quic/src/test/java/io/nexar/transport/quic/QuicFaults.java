package io.nexar.transport.quic;

import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.EventExecutor;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.BulkProbes;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * Test fixture: faults a {@link QuicTransport} can be made to show (a hung or killed process, a stray dialer, a
 * malformed frame), done from outside through its package-private seams so the transport itself carries no test code.
 */
final class QuicFaults {
    private QuicFaults() {
    }

    /**
     * Dials {@code peer} once more, outside its link, as a duplicate or misbehaving dialer would.
     *
     * @return a future that fails with the formation failure the acceptor caused
     */
    static CompletableFuture<Void> dialAgain(QuicTransport transport, int peer, Deadline deadline) {
        var stray = new PeerLink(peer, new InboundHandler() { // its failure must not reach the real handler
            @Override
            public Delivery onMessage(int from, Message message) {
                return Delivery.ACCEPTED;
            }

            @Override
            public boolean deliverWaiting(int from, Message message, long deadlineNanos) {
                return true;
            }

            @Override
            public void onPeerDown(int from, String why, Throwable cause) {
            }
        });
        transport.endpoint().dial(stray, transport.table().get(peer).quicAddress(), deadline);
        return stray.ready();
    }

    /**
     * {@code transport}'s rank plays a killed process: its QUIC event loops stop answering (each runs a task that
     * waits for {@code release}) and its TCP bulk lanes are closed without TLS close_notify or Goodbye, as the kernel
     * closes a killed process's sockets. Counting down {@code release} lets it run (and close) again.
     */
    static void playDead(QuicTransport transport, CountDownLatch release) {
        for (EventExecutor e : transport.endpoint().eventLoops()) {
            e.execute(() -> {
                try {
                    release.await();
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        for (int peer = 0; peer < transport.worldSize(); peer++) {
            PeerLink l = transport.link(peer);
            if (l != null) {
                l.bulks().forEach(BulkProbes::closeSocket);
            }
        }
    }

    /**
     * Stops {@code transport}'s heartbeats (data still flows), so peers see a rank whose process hangs: with nothing
     * else to send, its peers declare it failed after {@code heartbeat.timeout}.
     */
    static void pauseHeartbeats(QuicTransport transport) {
        transport.heartbeatsPaused(true);
    }

    /** Writes raw bytes on {@code lane}'s QUIC stream to {@code peer}, bypassing the codec. */
    static void writeRaw(QuicTransport transport, int peer, Lane lane, byte[] bytes) {
        Connection c = transport.link(peer).connection();
        c.channel().eventLoop().execute(() -> c.lane(lane).channel().writeAndFlush(Unpooled.wrappedBuffer(bytes)));
    }
}
