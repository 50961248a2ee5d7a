package io.nexar.transport.quic;

import static io.nexar.transport.quic.QuicBulkLaneTest.pattern;
import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.NexarConfig;
import io.nexar.internal.comm.TransportCommunicator;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the TCP bulk lane's setup refuses, each time leaving the pair usable: a bulk address where another member or
 * nobody answers (the pair stays on QUIC), a first frame that is no HELLO (refused on its length, before any
 * allocation), and a HELLO whose flags name no lane. Fixtures are {@link QuicBulkLaneTest}'s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BulkLaneRefusalTest {
    private static final InetAddress LOOPBACK = QuicBulkLaneTest.LOOPBACK;
    private static final NexarConfig CONFIG = QuicBulkLaneTest.CONFIG;

    @Test
    void shouldStayOnQuicWhenTheBulkAddressIsUnreachableOrAnotherMember() throws Exception {
        var config = CONFIG.toBuilder().build();
        try (var unused = new ServerSocket(0, 1, LOOPBACK)) {
            int closedPort;
            try (var probe = new ServerSocket(0, 1, LOOPBACK)) {
                closedPort = probe.getLocalPort();
            }
            var transports = new ArrayList<QuicTransport>();
            var quic = new ArrayList<InetSocketAddress>();
            var bulk = new ArrayList<InetSocketAddress>();
            for (int r = 0; r < 3; r++) {
                var t = new QuicTransport(r, 3, QuicTestCluster.credentials(r), config, new InetSocketAddress(LOOPBACK,
                        0), new Mailbox(1 << 20), new BulkLaneOptions(BulkLaneOptions.Mode.TLS, 2048));
                transports.add(t);
                quic.add(t.bind());
                bulk.add(t.bulkAddress());
            }
            // Rank 1's bulk address is rank 2's (the wrong member answers); rank 2's is a closed port.
            var peers = List.of(new PeerInfo(0, "m0", quic.get(0), bulk.get(0)),
                    new PeerInfo(1, "m1", quic.get(1), bulk.get(2)),
                    new PeerInfo(2, "m2", quic.get(2), new InetSocketAddress(LOOPBACK, closedPort)));
            try {
                var threads = new ArrayList<Thread>();
                Deadline deadline = Deadline.after(Duration.ofSeconds(15));
                for (QuicTransport t : transports) {
                    threads.add(Thread.ofVirtual().start(() -> t.connect(peers, deadline)));
                }
                for (Thread th : threads) {
                    th.join();
                }
                assertThat(transports.get(0).link(1).bulk()).as("0-1: rank 2 answered at rank 1's address").isNull();
                assertThat(transports.get(1).link(0).bulk()).isNull();
                assertThat(transports.get(0).link(2).bulk()).as("0-2: nobody listens").isNull();
                assertThat(transports.get(1).link(2).bulk()).isNull();
                // Large messages still arrive, on QUIC, in both directions.
                var comms = new ArrayList<TransportCommunicator>();
                for (QuicTransport t : transports) {
                    comms.add(new TransportCommunicator(t, (Mailbox) t.handler(), config, 0, () -> { }));
                }
                Thread back = Thread.ofVirtual().start(() -> comms.get(1).send(0, 1, pattern(100_000, 1)));
                comms.get(0).send(1, 1, pattern(100_000, 0));
                var got = new byte[100_000];
                comms.get(1).recv(0, 1, got);
                assertThat(got).isEqualTo(pattern(100_000, 0));
                comms.get(0).recv(1, 1, got);
                assertThat(got).isEqualTo(pattern(100_000, 1));
                back.join();
            } finally {
                transports.forEach(QuicTransport::close);
            }
        }
    }

    @Test
    void shouldRefuseAFirstFrameThatIsNoHelloWithoutAllocatingItAndStayUsable() throws Exception {
        var bulk = new BulkLaneOptions(BulkLaneOptions.Mode.TCP_PLAIN, 2048);
        try (var cluster = QuicTestCluster.start(2, CONFIG, LOOPBACK, bulk);
             var raw = SocketChannel.open(cluster.transport(1).bulkAddress())) {
            // An unidentified peer claims a frame of about 1 GiB: refused on its length, before any allocation.
            raw.write(ByteBuffer.wrap(new byte[] {(byte) 0xf0, (byte) 0xff, (byte) 0xff, 0x3f, 2, 0}));
            assertThat(raw.read(ByteBuffer.allocate(16))).as("the acceptor closes the connection").isEqualTo(-1);
            cluster.run(c -> {
                if (c.rank() == 0) {
                    c.send(1, 1, pattern(100_000, 3));
                } else {
                    var got = new byte[100_000];
                    c.recv(0, 1, got);
                    assertThat(got).isEqualTo(pattern(100_000, 3));
                }
                return null;
            });
        }
    }

    @Test
    void shouldRefuseABulkHelloThatNamesNoLaneAndStayUsable() throws Exception {
        var bulk = new BulkLaneOptions(BulkLaneOptions.Mode.TCP_PLAIN, 0);
        try (var cluster = QuicTestCluster.start(2, CONFIG, LOOPBACK, bulk)) {
            for (int flags : new int[] {0x00, 0x03, 0xff}) {
                try (var raw = SocketChannel.open(cluster.transport(1).bulkAddress())) {
                    // rank 0's own HELLO (right rank and incarnation), but its flags name no lane
                    var hello = ByteBuffer.allocate(WireFormat.HELLO_FRAME_BYTES);
                    MessageCodec.encode(new Message.Hello(WireFormat.VERSION, 0, 2, cluster.transport(0).incarnation()),
                            MemorySegment.ofBuffer(hello));
                    hello.put(WireFormat.FLAGS_OFFSET, (byte) flags);
                    raw.write(hello);
                    assertThat(raw.read(ByteBuffer.allocate(64))).as("flags 0x%02x: the acceptor closes", flags)
                            .isEqualTo(-1);
                }
            }
            cluster.run(c -> {
                if (c.rank() == 0) {
                    c.send(1, 1, pattern(100_000, 4));
                } else {
                    var got = new byte[100_000];
                    c.recv(0, 1, got);
                    assertThat(got).isEqualTo(pattern(100_000, 4));
                }
                float[] v = {c.rank()};
                c.allReduce(v, io.nexar.ReduceOp.SUM);
                assertThat(v).containsExactly(1f);
                return null;
            });
            assertThat(cluster.transport(0).link(1).bulk(Lane.P2P)).as("the lanes set up at formation").isNotNull();
            assertThat(cluster.transport(0).link(1).bulk(Lane.COLLECTIVE)).isNotNull();
        }
    }
}
