package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.EventExecutor;
import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import io.nexar.testkit.Await;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every process paused at once for longer than {@code heartbeat.timeout} (issue 16's soak on a 2-core machine at a load
 * average of 38: all four ranks got no CPU for about 6 s, then each declared another failed and the job ended).
 * Each rank's heartbeat timer sees that it was paused itself, and counts its peers' silence from its resumption, so
 * nobody is accused; a peer that stays silent is still declared failed (the other tests of the failure detector).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LocalPauseTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment()
            .heartbeat(Duration.ofMillis(100), TIMEOUT).build();
    /** The pause of every process: well beyond the heartbeat timeout. */
    private static final long PAUSE_MS = 2500;

    @Test
    void shouldAccuseNobodyWhenEveryProcessWasPausedBeyondTheHeartbeatTimeout() throws Exception {
        var handlers = new ArrayList<QuicTransportTest.RecordingHandler>();
        for (int r = 0; r < 2; r++) {
            handlers.add(new QuicTransportTest.RecordingHandler(1 << 20));
        }
        var transports = QuicTestCluster.form(2, CONFIG, LOOPBACK, QuicTestCluster::credentials, handlers::get,
                BulkLaneOptions.off());
        try {
            long before = System.nanoTime();
            for (QuicTransport t : transports) { // every event loop of both ranks, the heartbeat timers included
                for (EventExecutor e : t.endpoint().eventLoops()) {
                    e.execute(() -> {
                        try {
                            Thread.sleep(PAUSE_MS); // the pause itself (the fault), not a wait for an event
                        } catch (InterruptedException interrupted) {
                            Thread.currentThread().interrupt();
                        }
                    });
                }
            }
            for (QuicTransport t : transports) {
                Await.until(() -> t.endpoint().resumedNanos() - before > TimeUnit.MILLISECONDS.toNanos(PAUSE_MS),
                        Duration.ofSeconds(20), "rank " + t.rank() + "'s heartbeat timer noticing its own pause");
            }
            exchange(transports, handlers);
            assertThat(handlers.get(0).downs).as("rank 0's peer-down reports").isEmpty();
            assertThat(handlers.get(1).downs).as("rank 1's peer-down reports").isEmpty();
            assertThat(transports.get(0).link(1).isDown()).isFalse();
            assertThat(transports.get(1).link(0).isDown()).isFalse();
            System.out.println("both ranks paused " + PAUSE_MS + " ms (heartbeat.timeout " + TIMEOUT.toMillis()
                    + " ms): nobody accused");
        } finally {
            transports.forEach(QuicTransport::close);
        }
    }

    /** Each rank sends the other a message and receives the other's. */
    private static void exchange(List<QuicTransport> transports, List<QuicTransportTest.RecordingHandler> handlers) {
        for (int from = 0; from < 2; from++) {
            byte[] payload = {1, 2, 3, (byte) from};
            transports.get(from).send(1 - from, Lane.P2P, new Message.Data(0, 4, 0, payload.length, 0,
                    MemorySegment.ofArray(payload)), Deadline.after(Duration.ofSeconds(10)),
                    ErrorContext.of(Operation.SEND));
            var got = new byte[payload.length];
            handlers.get(1 - from).mailbox.receiveFrom(0, from, 4, MemorySegment.ofArray(got),
                    Deadline.after(Duration.ofSeconds(10)), ErrorContext.of(Operation.RECV).withPeer(from));
            assertThat(got).isEqualTo(payload);
        }
    }
}
