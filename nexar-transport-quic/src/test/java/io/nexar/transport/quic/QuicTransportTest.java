package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.ProtocolException;
import io.nexar.internal.comm.TransportCommunicator;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import io.nexar.testkit.Await;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import java.lang.management.ManagementFactory;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the point-to-point contract cannot see: frame limits, lane independence, and clean shutdown. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuicTransportTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment()
            .p2pTimeout(Duration.ofSeconds(20)).build();

    @Test
    void shouldRefuseAnOversizedLengthPrefixWithoutAllocatingItAndMarkThePeerDown() throws Exception {
        var handlers = List.of(new RecordingHandler(1 << 20), new RecordingHandler(1 << 20));
        var transports = QuicTestCluster.form(2, CONFIG, LOOPBACK, QuicTestCluster::credentials, handlers::get);
        try {
            long before = allocatedBytes("nexar-quic-r1-");
            // A frame header claiming 0x3ffffff0 bytes (about 1 GiB) on the P2P lane: max.frame.size is 16 MiB.
            QuicFaults.writeRaw(transports.get(0), 1, Lane.P2P,
                    new byte[] {(byte) 0xf0, (byte) 0xff, (byte) 0xff, 0x3f, 2, 0});

            PeerDown down = handlers.get(1).downs.poll(10, TimeUnit.SECONDS);
            assertThat(down).isNotNull();
            assertThat(down.peer).isZero();
            assertThat(down.why).startsWith("broke the protocol: ");
            assertThat(down.cause).isInstanceOfSatisfying(ProtocolException.class,
                    e -> assertThat(e.peer()).hasValue(0))
                    .hasMessageContaining("frame of 1073741808 bytes from rank 0 exceeds the maximum of 16777216"
                            + " bytes");
            assertThat(allocatedBytes("nexar-quic-r1-") - before).as("bytes allocated by rank 1's event loops")
                    .isLessThan(64L << 20);
            assertThatThrownBy(() -> transports.get(1).send(0, Lane.P2P, new Message.Heartbeat(1, 1),
                    Deadline.after(Duration.ofSeconds(5)), ErrorContext.of(Operation.SEND)))
                    .isInstanceOf(PeerFailedException.class).hasMessageContaining("rank 0 broke the protocol: ");

            PeerDown other = handlers.get(0).downs.poll(10, TimeUnit.SECONDS);
            assertThat(other).as("the offender is told why and sees rank 1 go").isNotNull();
            assertThat(other.why).startsWith("closed the connection, saying this rank broke the protocol: ")
                    .contains("exceeds the maximum");
        } finally {
            transports.forEach(QuicTransport::close);
        }
    }

    /** Sequence numbers of this test's heartbeats, far above the failure detector's own. */
    private static final long TEST_BEATS = 1L << 40;

    @Test
    void shouldDeliverControlMessagesWhileTheP2pLaneIsStalled() throws Exception {
        long store = 64 << 10;
        int size = 16 << 10;
        int messages = 64; // 1 MiB: far more than the store, the lane's window and its send queue together
        var config = CONFIG.toBuilder().unexpectedMaxBytes(store).chunkBytes(4096).build();
        var handlers = List.of(new RecordingHandler(store), new RecordingHandler(store));
        // QUIC alone: the P2P stream stalls while the control stream goes on (with TCP lanes, the P2P messages would
        // not even share the QUIC connection)
        var transports = QuicTestCluster.form(2, config, LOOPBACK, QuicTestCluster::credentials, handlers::get,
                BulkLaneOptions.off());
        var sender = new TransportCommunicator(transports.get(0), handlers.get(0).mailbox, config, 0, () -> { });
        var receiver = new TransportCommunicator(transports.get(1), handlers.get(1).mailbox, config, 0, () -> { });
        var sent = new AtomicInteger();
        try {
            Thread bulk = Thread.ofVirtual().start(() -> {
                for (int i = 0; i < messages; i++) {
                    sender.send(1, 5, pattern(size, i));
                    sent.incrementAndGet();
                }
            });
            // one sender's share is half the store (the other half stays for other senders)
            Await.until(() -> handlers.get(1).mailbox.storedBytes() >= store / 2 - 4096, Duration.ofSeconds(20),
                    "rank 1's store of unexpected messages is full (rank 0's share of it)");

            int beats = 50;
            long start = System.nanoTime();
            for (int i = 0; i < beats; i++) {
                transports.get(0).send(1, Lane.CONTROL, new Message.Heartbeat(TEST_BEATS + i, System.nanoTime()),
                        Deadline.after(Duration.ofSeconds(5)), ErrorContext.of(Operation.SEND));
            }
            long worst = 0;
            for (int i = 0; i < beats; i++) {
                Arrived a = handlers.get(1).heartbeats.poll(5, TimeUnit.SECONDS);
                assertThat(a).as("heartbeat %d", i).isNotNull();
                assertThat(a.beat.sequence()).isEqualTo(TEST_BEATS + i);
                worst = Math.max(worst, a.atNanos - a.beat.sentNanos());
            }
            long all = System.nanoTime() - start;
            System.out.printf("50 heartbeats past a stalled P2P lane: all in %.2f ms, worst latency %.2f ms%n",
                    all / 1e6, worst / 1e6);
            assertThat(Duration.ofNanos(worst)).isLessThan(Duration.ofSeconds(1));
            assertThat(sent.get()).as("P2P messages sent while rank 1 receives none: the sender waits")
                    .isLessThan(messages);
            assertThat(bulk.isAlive()).isTrue();

            var got = new byte[size];
            for (int i = 0; i < messages; i++) {
                assertThat(receiver.recv(0, 5, got)).isEqualTo(size);
                assertThat(got).as("message %d", i).isEqualTo(pattern(size, i));
            }
            bulk.join();
        } finally {
            transports.forEach(QuicTransport::close);
        }
    }

    @Test
    void shouldKeepOneConnectionPerPairAndRefuseDuplicateOrWrongWayDials() throws Exception {
        var cluster = QuicTestCluster.start(2, CONFIG, LOOPBACK);
        try {
            Deadline deadline = Deadline.after(Duration.ofSeconds(10));
            assertThatThrownBy(() -> QuicFaults.dialAgain(cluster.transport(0), 1, deadline).join())
                    .hasCauseInstanceOf(PeerLink.FormationFailure.class)
                    .hasMessageContaining("rank 1 refused the connection from 127.0.0.1:")
                    .hasMessageEndingWith(": it is rank 0 (member m0), which is already connected or down");
            assertThatThrownBy(() -> QuicFaults.dialAgain(cluster.transport(1), 0, deadline).join())
                    .hasCauseInstanceOf(PeerLink.FormationFailure.class)
                    .hasMessageEndingWith(": it is rank 1 (member m1), which must not dial rank 0: the lower rank"
                            + " dials");
            cluster.run(c -> { // the original connection is unaffected
                c.send(1 - c.rank(), 3, new long[] {c.rank()});
                var x = new long[1];
                c.recv(1 - c.rank(), 3, x);
                assertThat(x[0]).isEqualTo(1 - c.rank());
                return null;
            });
        } finally {
            cluster.close();
        }
    }

    @Test
    void shouldLeaveNoThreadOrSocketAfterClose() throws Exception {
        var cluster = QuicTestCluster.start(3, CONFIG, LOOPBACK);
        var addresses = new ArrayList<InetSocketAddress>();
        for (int r = 0; r < 3; r++) {
            addresses.add(cluster.transport(r).localAddress());
        }
        cluster.run(c -> {
            c.send((c.rank() + 1) % 3, 1, new int[] {c.rank()});
            var x = new int[1];
            c.recv((c.rank() + 2) % 3, 1, x);
            assertThat(x[0]).isEqualTo((c.rank() + 2) % 3);
            return null;
        });
        assertThat(liveThreads("nexar-quic-")).as("running cluster").isNotEmpty();

        long start = System.nanoTime();
        cluster.close();
        cluster.close(); // idempotent
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.println("closing 3 ranks took " + took.toMillis() + " ms");

        assertThat(took).isLessThan(CONFIG.closeTimeout());
        assertThat(liveThreads("nexar-quic-")).as("threads after close").isEmpty();
        for (InetSocketAddress a : addresses) {
            try (var s = new DatagramSocket(a)) { // the port is free again
                assertThat(s.getLocalPort()).isEqualTo(a.getPort());
            }
        }
    }

    private static List<String> liveThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith(prefix)).sorted().toList();
    }

    private static long allocatedBytes(String threadPrefix) {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(threadPrefix)) {
                sum += Math.max(0, mx.getThreadAllocatedBytes(t.threadId()));
            }
        }
        return sum;
    }

    private static byte[] pattern(int size, int id) {
        var b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + id * 7);
        }
        return b;
    }

    record PeerDown(int peer, String why, Throwable cause) {
    }

    record Arrived(Message.Heartbeat beat, long atNanos) {
    }

    /** A {@link Mailbox} that also records heartbeats (with their arrival time) and peer-down reports. */
    static final class RecordingHandler implements InboundHandler {
        final Mailbox mailbox;
        final BlockingQueue<Arrived> heartbeats = new LinkedBlockingQueue<>();
        final BlockingQueue<PeerDown> downs = new LinkedBlockingQueue<>();

        RecordingHandler(long storeBytes) {
            this.mailbox = new Mailbox(storeBytes);
        }

        @Override
        public Delivery onMessage(int peer, Message message) {
            if (message instanceof Message.Heartbeat h && h.sequence() >= TEST_BEATS) { // not the detector's own
                heartbeats.add(new Arrived(h, System.nanoTime()));
                return Delivery.ACCEPTED;
            }
            return mailbox.onMessage(peer, message);
        }

        @Override
        public boolean deliverWaiting(int peer, Message message, long deadlineNanos) throws InterruptedException {
            return mailbox.deliverWaiting(peer, message, deadlineNanos);
        }

        @Override
        public void onPeerDown(int peer, String why, Throwable cause) {
            downs.add(new PeerDown(peer, why, cause));
            mailbox.onPeerDown(peer, why, cause);
        }
    }
}
