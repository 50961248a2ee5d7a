package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.NexarException;
import io.nexar.Operation;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer killed while this rank is about to leave (issue 16): its bulk lanes end without close_notify and its QUIC
 * side says nothing more. A rank that closes right then (its first sign was a failed write or the lane's end, and its
 * program gives up at once) must not wait for the dead peer's Goodbye until the end of {@code close.timeout}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuicAbruptEndTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** Long, so that a close that waits for the dead peer stands out; heartbeats never fire during the test. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(12);
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment()
            .heartbeat(Duration.ofSeconds(1), Duration.ofSeconds(40)).closeTimeout(CLOSE_TIMEOUT).build();

    @Test
    void shouldCloseAtOnceWhenAPeerDiedJustBeforeThisRankLeaves() {
        assertThat(closeAfterPeerDied(false)).as("close() while the killed peer's lane ends")
                .isLessThan(Duration.ofSeconds(3));
    }

    @Test
    void shouldCloseAtOnceAfterAFailedWriteToAKilledPeer() {
        assertThat(closeAfterPeerDied(true)).as("close() right after the send to the killed peer failed")
                .isLessThan(Duration.ofSeconds(3));
    }

    @Test
    void shouldReportAKilledPeerWithinTheGracePeriodWhenAWriteToItFailedFirst() throws Exception {
        var handlers = List.of(new QuicTransportTest.RecordingHandler(1 << 20),
                new QuicTransportTest.RecordingHandler(1 << 20));
        var transports = QuicTestCluster.form(2, CONFIG, LOOPBACK, QuicTestCluster::credentials, handlers::get);
        var release = new CountDownLatch(1);
        try {
            QuicFaults.playDead(transports.get(1), release);
            long start = System.nanoTime();
            sendUntilItFails(transports.get(0));
            // heartbeats would take 40 s: only the bulk lane's end (or the failed write) can report it this soon
            var down = handlers.get(0).downs.poll(10, TimeUnit.SECONDS);
            assertThat(down).as("rank 1 reported down to rank 0's handler").isNotNull();
            System.out.println("rank 1 reported down after " + (System.nanoTime() - start) / 1_000_000 + " ms: "
                    + down.why());
            assertThat(down.peer()).isEqualTo(1);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        } finally {
            release.countDown();
            transports.forEach(QuicTransport::close);
        }
    }

    /** Forms 2 ranks with TCP bulk lanes, kills rank 1 ({@link QuicFaults#playDead}), then closes rank 0: how long. */
    private static Duration closeAfterPeerDied(boolean sendFirst) {
        var handlers = List.of(new QuicTransportTest.RecordingHandler(1 << 20),
                new QuicTransportTest.RecordingHandler(1 << 20));
        var transports = QuicTestCluster.form(2, CONFIG, LOOPBACK, QuicTestCluster::credentials, handlers::get);
        var release = new CountDownLatch(1);
        try {
            assertThat(transports.get(0).link(1).bulks()).as("rank 0's TCP bulk lanes to rank 1").isNotEmpty();
            QuicFaults.playDead(transports.get(1), release);
            if (sendFirst) {
                sendUntilItFails(transports.get(0));
            }
            long start = System.nanoTime();
            transports.get(0).close();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            System.out.println("close() of rank 0 after rank 1 died took " + took.toMillis() + " ms (close.timeout "
                    + CLOSE_TIMEOUT.toSeconds() + " s)");
            return took;
        } finally {
            release.countDown();
            transports.forEach(QuicTransport::close);
        }
    }

    /** Sends 1 MiB messages on the point-to-point lane (the bulk lane carries them) until a send fails. */
    private static void sendUntilItFails(QuicTransport t) {
        var payload = MemorySegment.ofArray(new byte[1 << 20]);
        for (int seq = 0; ; seq++) {
            try {
                t.send(1, Lane.P2P, new Message.Data(0, 7, seq, payload.byteSize(), 0, payload),
                        Deadline.after(Duration.ofSeconds(20)), ErrorContext.of(Operation.SEND));
            } catch (NexarException e) {
                System.out.println("send " + seq + " to the killed rank failed: " + e.getMessage());
                return;
            }
        }
    }
}
