package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.protocol.AbortReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.InboundRouter;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import io.nexar.transport.quic.bulk.BulkProbes;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Members that speak the protocol badly (issue 16 item 2): each test plays the bad member from inside rank 0 and checks
 * that the rank it targets names it in a clear error, holds bounded memory, and loses nothing that the well-behaved
 * ranks send each other.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HostilePeerTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofMillis(1500);
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment()
            .heartbeat(Duration.ofMillis(300), HEARTBEAT_TIMEOUT).p2pTimeout(Duration.ofSeconds(30)).build();

    @Test
    void shouldReportAMemberThatClaimsAFrameSizeItNeverSends() throws Exception {
        var handlers = handlers(3);
        var transports = QuicTestCluster.form(3, CONFIG, LOOPBACK, QuicTestCluster::credentials, handlers::get,
                new BulkLaneOptions(BulkLaneOptions.Mode.TCP_PLAIN, 0));
        try {
            // rank 0's bulk lane to rank 1: a length prefix of 1000 bytes, 10 of them, then silence (heartbeats go on)
            var raw = ByteBuffer.allocate(14).order(ByteOrder.LITTLE_ENDIAN).putInt(1000).put(new byte[10]).flip();
            long start = System.nanoTime();
            writeRaw(transports.get(0), 1, raw);
            assertCutOff(handlers, start, "rank 0 sent 14 bytes of a 1004-byte frame", "heartbeat.timeout (1.5s)");
            exchange(transports, handlers, 1, 2);
        } finally {
            transports.forEach(QuicTransport::close);
        }
    }

    @Test
    void shouldReportAMemberThatSendsAFrameOneByteAtATime() throws Exception {
        var handlers = handlers(3);
        var transports = QuicTestCluster.form(3, CONFIG, LOOPBACK, QuicTestCluster::credentials, handlers::get,
                new BulkLaneOptions(BulkLaneOptions.Mode.TCP_PLAIN, 0));
        Thread slow = null;
        try {
            // a 200-byte frame, one byte every 50 ms: never a pause of heartbeat.timeout, but 10 s for the frame
            long start = System.nanoTime();
            writeRaw(transports.get(0), 1, ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(200).flip());
            slow = trickle(() -> writeRaw(transports.get(0), 1, ByteBuffer.wrap(new byte[] {1})));
            assertCutOff(handlers, start, "of a 204-byte frame", "KiB/s");
            exchange(transports, handlers, 1, 2);
        } finally {
            if (slow != null) {
                slow.interrupt();
                slow.join();
            }
            transports.forEach(QuicTransport::close);
        }
    }

    @Test
    void shouldReportAMemberThatBeginsAQuicFrameAndStops() throws Exception {
        var handlers = handlers(3);
        var transports = QuicTestCluster.form(3, CONFIG, LOOPBACK, QuicTestCluster::credentials, handlers::get,
                BulkLaneOptions.off());
        try {
            // rank 0's QUIC point-to-point stream to rank 1: a length prefix of 1000 bytes, 10 of them, then silence
            // while its heartbeats on the control stream go on
            byte[] raw = ByteBuffer.allocate(14).order(ByteOrder.LITTLE_ENDIAN).putInt(1000).put(new byte[10]).array();
            long start = System.nanoTime();
            QuicFaults.writeRaw(transports.get(0), 1, Lane.P2P, raw);
            assertCutOff(handlers, start, "rank 0 sent 14 bytes of a 1004-byte frame on lane " + Lane.P2P.name(),
                    "heartbeat.timeout (1.5s)");
            exchange(transports, handlers, 1, 2);
        } finally {
            transports.forEach(QuicTransport::close);
        }
    }

    @Test
    void shouldReportAMemberThatTricklesAQuicFrame() throws Exception {
        var handlers = handlers(3);
        var transports = QuicTestCluster.form(3, CONFIG, LOOPBACK, QuicTestCluster::credentials, handlers::get,
                BulkLaneOptions.off());
        Thread slow = null;
        try {
            // a 200-byte frame on the collective stream, one byte every 50 ms: never a pause of heartbeat.timeout,
            // but 10 s for the frame
            long start = System.nanoTime();
            QuicFaults.writeRaw(transports.get(0), 1, Lane.COLLECTIVE,
                    ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(200).array());
            slow = trickle(() -> QuicFaults.writeRaw(transports.get(0), 1, Lane.COLLECTIVE, new byte[] {1}));
            assertCutOff(handlers, start, "rank 0 sent", "of a 204-byte frame on lane " + Lane.COLLECTIVE.name(),
                    "KiB/s");
            exchange(transports, handlers, 1, 2);
        } finally {
            if (slow != null) {
                slow.interrupt();
                slow.join();
            }
            transports.forEach(QuicTransport::close);
        }
    }

    /**
     * A frame the codec cannot decode (an unknown message type on a QUIC stream): the receiver reports the sender down
     * at once, and the error names where it was seen, its own rank and world, as well as the sender (issue 14 item 8;
     * the codec alone knows only the sender).
     */
    @Test
    void shouldNameTheReceivingRankInADecodeErrorOfAMalformedQuicFrame() throws Exception {
        var handlers = handlers(2);
        var transports = QuicTestCluster.form(2, CONFIG, LOOPBACK, QuicTestCluster::credentials, handlers::get,
                BulkLaneOptions.off());
        try {
            // a frame of length 2: message type 0xEE (none such), flags 0
            QuicFaults.writeRaw(transports.get(0), 1, Lane.P2P, new byte[] {2, 0, 0, 0, (byte) 0xEE, 0});
            var down = handlers.get(1).downs.poll(30, TimeUnit.SECONDS);
            System.out.println("rank 1 reported: " + down);
            assertThat(down).as("rank 1 reports rank 0").isNotNull();
            assertThat(down.peer()).isEqualTo(0);
            assertThat(down.why()).contains("broke the protocol: decode on rank 1 (world 2, peer 0) unknown message"
                    + " type 0xee from rank 0");
        } finally {
            transports.forEach(QuicTransport::close);
        }
    }

    @Test
    void shouldCutOffAMemberThatSendsAbortsOfOperationsThatNeverCome() throws Exception {
        var ranks = new ArrayList<EngineHandler>();
        for (int r = 0; r < 3; r++) {
            ranks.add(new EngineHandler());
        }
        var transports = QuicTestCluster.form(3, CONFIG, LOOPBACK, QuicTestCluster::credentials, ranks::get);
        try {
            // rank 0 tells rank 1 that operations 0..1024 of communicator 77 failed; rank 1 never starts any of them
            int bound = 1024; // EarlyStore.MAX_EARLY_ABORTS
            String detail = "x".repeat(1024); // the longest detail: the bound holds about 1.2 MiB
            for (long seq = 0; seq <= bound; seq++) {
                transports.get(0).send(1, Lane.COLLECTIVE, new Message.CollectiveAbort(77, seq, AbortReason.FAILED, 0,
                        -1, detail), Deadline.after(Duration.ofSeconds(10)), ErrorContext.of(Operation.BARRIER));
            }
            var down = ranks.get(1).downs.poll(30, TimeUnit.SECONDS);
            System.out.println("rank 1 reported: " + down);
            assertThat(down).as("rank 1 reports rank 0").isNotNull();
            assertThat(down.peer()).isEqualTo(0);
            assertThat(down.why()).contains("broke the protocol")
                    .contains("rank 0 sent more than " + bound + " COLLECTIVE_ABORTs")
                    .contains("operation " + bound + " of communicator 77");
            exchange(transports, r -> ranks.get(r).router.mailbox(), 1, 2);
        } finally {
            transports.forEach(QuicTransport::close);
        }
    }

    @Test
    void shouldBoundTheUnexpectedMessagesOfAMemberThatFloodsEmptyMessages() throws Exception {
        long store = 64 << 10;
        int flood = 20_000;
        int bound = 4096 / 2; // UnexpectedStore.MIN_STORED_MESSAGES (a 64 KiB store's) over SenderShare.DIVISOR
        var config = CONFIG.toBuilder().unexpectedMaxBytes(store).build();
        try (var cluster = QuicTestCluster.start(3, config, LOOPBACK)) {
            cluster.run(c -> {
                switch (c.rank()) {
                    case 0 -> { // the flooder: empty messages that rank 2 does not receive yet
                        for (int i = 0; i < flood; i++) {
                            c.send(2, 99, new byte[0]);
                        }
                        c.barrier(); // on the collective lane, which the flooded point-to-point lane does not hold up
                    }
                    case 1 -> {
                        for (int i = 0; i < 10; i++) {
                            c.send(2, 1, pattern(1000, i));
                        }
                        c.barrier();
                    }
                    default -> {
                        var mailbox = cluster.mailbox(2);
                        c.barrier(); // rank 0 wrote its whole flood: what rank 2 does not hold waits in TCP
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while (mailbox.storedMessagesFrom(0) < bound && System.nanoTime() < until) {
                            Thread.onSpinWait();
                        }
                        System.out.println("rank 2 holds " + mailbox.storedMessages() + " unmatched messages ("
                                + mailbox.storedBytes() + " bytes) while rank 0 floods " + flood);
                        assertThat(mailbox.storedMessagesFrom(0)).as("the flooder's share of the message bound")
                                .isEqualTo(bound);
                        var got = new byte[1000];
                        for (int i = 0; i < 10; i++) { // the well-behaved sender gets through the full store
                            assertThat(c.recv(1, 1, got)).isEqualTo(1000);
                            assertThat(got).isEqualTo(pattern(1000, i));
                        }
                        for (int i = 0; i < flood; i++) { // and nothing of the flood is lost either
                            assertThat(c.recv(0, 99, new byte[0])).isZero();
                        }
                        assertThat(mailbox.storedMessages()).isZero();
                    }
                }
                return null;
            });
        }
    }

    @Test
    void shouldKeepTheOtherHalfOfTheStoreForTheOtherSendersWhileAMemberFloods() throws Exception {
        long store = 64 << 10;
        int flood = 20_000;
        long share = 4096 / 2; // UnexpectedStore.MIN_STORED_MESSAGES over SenderShare.DIVISOR: one sender's share
        int honest = 200;
        var config = CONFIG.toBuilder().unexpectedMaxBytes(store).build();
        try (var cluster = QuicTestCluster.start(3, config, LOOPBACK)) {
            cluster.run(c -> {
                switch (c.rank()) {
                    case 0 -> { // the flooder: empty messages that rank 2 does not receive yet
                        for (int i = 0; i < flood; i++) {
                            c.send(2, 99, new byte[0]);
                        }
                        c.barrier();
                        c.barrier();
                    }
                    case 1 -> { // sends only once the flood is written, and nobody receives its messages yet either
                        c.barrier();
                        for (int i = 0; i < honest; i++) {
                            c.send(2, 1, pattern(100, i));
                        }
                        c.barrier();
                    }
                    default -> {
                        var mailbox = cluster.mailbox(2);
                        c.barrier(); // rank 0 wrote its flood
                        c.barrier(); // rank 1 wrote its messages
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while ((mailbox.storedMessagesFrom(1) < honest || mailbox.storedMessagesFrom(0) < share)
                                && System.nanoTime() < until) {
                            Thread.onSpinWait();
                        }
                        System.out.println("rank 2 holds " + mailbox.storedMessagesFrom(0) + " unmatched messages of"
                                + " the flooder (rank 0) and " + mailbox.storedMessagesFrom(1) + " of rank 1");
                        assertThat(mailbox.storedMessagesFrom(0)).as("the flooder's share").isEqualTo(share);
                        assertThat(mailbox.storedMessagesFrom(1)).as("rank 1's messages, none received yet")
                                .isEqualTo(honest);
                        var got = new byte[100];
                        for (int i = 0; i < honest; i++) {
                            assertThat(c.recv(1, 1, got)).isEqualTo(100);
                            assertThat(got).isEqualTo(pattern(100, i));
                        }
                        for (int i = 0; i < flood; i++) { // nothing of the flood is lost
                            assertThat(c.recv(0, 99, new byte[0])).isZero();
                        }
                        assertThat(mailbox.storedMessages()).isZero();
                    }
                }
                return null;
            });
        }
    }

    private static List<QuicTransportTest.RecordingHandler> handlers(int n) {
        var handlers = new ArrayList<QuicTransportTest.RecordingHandler>();
        for (int r = 0; r < n; r++) {
            handlers.add(new QuicTransportTest.RecordingHandler(1 << 20));
        }
        return handlers;
    }

    /** Writes {@code bytes} on {@code from}'s point-to-point bulk lane to {@code to}, bypassing its writer. */
    private static void writeRaw(QuicTransport from, int to, ByteBuffer bytes) throws Exception {
        SocketChannel channel = BulkProbes.channel(from.link(to).bulk(Lane.P2P));
        while (bytes.hasRemaining()) {
            if (channel.write(bytes) == 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** A rank with a real mailbox and collective engine that records the peers it reports down. */
    private static final class EngineHandler implements InboundHandler {
        final InboundRouter router = new InboundRouter(new Mailbox(1 << 20), new CollectiveEngine(1 << 20));
        final BlockingQueue<QuicTransportTest.PeerDown> downs = new LinkedBlockingQueue<>();

        @Override
        public Delivery onMessage(int peer, Message message) {
            return router.onMessage(peer, message);
        }

        @Override
        public boolean deliverWaiting(int peer, Message message, long deadlineNanos) throws InterruptedException {
            return router.deliverWaiting(peer, message, deadlineNanos);
        }

        @Override
        public void onPeerDown(int peer, String why, Throwable cause) {
            downs.add(new QuicTransportTest.PeerDown(peer, why, cause));
            router.onPeerDown(peer, why, cause);
        }
    }

    /** The two well-behaved ranks send each other a message both ways, and receive it intact. */
    private static void exchange(List<QuicTransport> transports, List<QuicTransportTest.RecordingHandler> handlers,
                                 int a, int b) {
        exchange(transports, r -> handlers.get(r).mailbox, a, b);
    }

    /** {@link #exchange(List, List, int, int)} with each rank's mailbox from {@code mailboxes}. */
    private static void exchange(List<QuicTransport> transports, IntFunction<Mailbox> mailboxes, int a, int b) {
        for (int[] pair : new int[][] {{a, b}, {b, a}}) {
            byte[] payload = pattern(5000, pair[0]);
            transports.get(pair[0]).send(pair[1], Lane.P2P, new Message.Data(0, 3, 0, payload.length, 0,
                    MemorySegment.ofArray(payload)), Deadline.after(Duration.ofSeconds(10)),
                    ErrorContext.of(Operation.SEND));
            var got = new byte[payload.length];
            mailboxes.apply(pair[1]).receiveFrom(0, pair[0], 3, MemorySegment.ofArray(got),
                    Deadline.after(Duration.ofSeconds(10)), ErrorContext.of(Operation.RECV).withPeer(pair[0]));
            assertThat(got).as("rank %d to rank %d", pair[0], pair[1]).isEqualTo(payload);
        }
    }

    private static byte[] pattern(int size, int seed) {
        var b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    /**
     * Waits for rank 1 to report rank 0 down for breaking the protocol, about the heartbeat timeout after {@code start}
     * (not before it, well within 15 s), the reason containing each of {@code why}.
     */
    private static void assertCutOff(List<QuicTransportTest.RecordingHandler> handlers, long start, String... why)
            throws InterruptedException {
        var down = handlers.get(1).downs.poll(30, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.println("rank 1 reported rank 0 after " + ms + " ms: " + down);
        assertThat(down).as("rank 1 reports rank 0").isNotNull();
        assertThat(down.peer()).isEqualTo(0);
        assertThat(down.why()).contains("broke the protocol").contains(why);
        assertThat(ms).as("about the heartbeat timeout (200 bytes take 3 ms at the minimum rate)")
                .isGreaterThanOrEqualTo(HEARTBEAT_TIMEOUT.toMillis() - 50).isLessThan(15_000);
    }

    /** One byte of a frame, written by the hostile peer. */
    private interface ByteWrite {
        void write() throws Exception;
    }

    /**
     * The hostile peer's slow sender: {@code oneByte} every 50 ms, 200 times, on a virtual thread, until it is
     * interrupted or the connection is dropped.
     */
    private static Thread trickle(ByteWrite oneByte) {
        return Thread.ofVirtual().start(() -> {
            try {
                for (int i = 0; i < 200 && !Thread.currentThread().isInterrupted(); i++) {
                    Thread.sleep(50); // the hostile peer's pace, not a wait for an event of the test
                    oneByte.write();
                }
            } catch (Exception closed) {
                // rank 1 dropped the connection: the slow sender is done
            }
        });
    }
}
