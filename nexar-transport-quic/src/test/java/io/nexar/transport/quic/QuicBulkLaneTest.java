package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.OperationTimeoutException;
import io.nexar.internal.comm.TransportCommunicator;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import io.nexar.testkit.Await;
import io.nexar.transport.quic.bulk.BulkConnection;
import io.nexar.transport.quic.bulk.BulkEndpoint;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import io.nexar.transport.quic.bulk.BulkProbes;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The TCP bulk lane: both paths mixed in order, its own back-pressure bound, frames finished from a copy at the
 * deadline, and no thread left behind; what its setup refuses is in {@link BulkLaneRefusalTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuicBulkLaneTest {
    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment()
            .p2pTimeout(Duration.ofSeconds(20)).chunkBytes(4096).build();

    @Test
    void shouldKeepPerTagOrderWhenMessagesAlternateBetweenTcpAndQuic() {
        long seed = Long.getLong("nexar.test.seed", 0xB01CL);
        System.out.println("shouldKeepPerTagOrderWhenMessagesAlternateBetweenTcpAndQuic seed=" + seed);
        int[] sizes = new Random(seed).ints(200, 0, 12_000).toArray(); // threshold 2 KiB: both paths, interleaved
        for (var mode : List.of(BulkLaneOptions.Mode.TLS, BulkLaneOptions.Mode.TCP_PLAIN)) {
            try (var cluster = QuicTestCluster.start(2, CONFIG, LOOPBACK, new BulkLaneOptions(mode, 2048))) {
                assertThat(cluster.transport(0).link(1).bulk()).as("%s bulk lane", mode).isNotNull();
                cluster.run(c -> {
                    int other = 1 - c.rank();
                    Thread sender = Thread.ofVirtual().start(() -> {
                        for (int i = 0; i < sizes.length; i++) {
                            c.send(other, i % 3, pattern(sizes[i], c.rank() * 1000 + i));
                        }
                    });
                    for (int tag = 2; tag >= 0; tag--) {
                        for (int i = tag; i < sizes.length; i += 3) {
                            var got = new byte[12_000];
                            int n = c.recv(other, tag, got);
                            assertThat(Arrays.copyOf(got, n)).as("%s seed %d message %d", mode, seed, i)
                                    .isEqualTo(pattern(sizes[i], other * 1000 + i));
                        }
                    }
                    sender.join();
                    return null;
                });
            }
        }
    }

    @Test
    void shouldBoundWhatTheBulkLaneBuffersForAReceiverThatDoesNotReceive() throws Exception {
        long store = 1 << 20;
        int size = 1 << 20;
        int messages = 64; // 64 MiB: far more than the store, the queue and both socket buffers together
        var config = CONFIG.toBuilder().unexpectedMaxBytes(store).chunkBytes(256 << 10).build();
        var mailboxes = List.of(new Mailbox(store), new Mailbox(store));
        var transports = QuicTestCluster.form(2, config, LOOPBACK, QuicTestCluster::credentials, mailboxes::get,
                BulkLaneOptions.defaults());
        var sender = new TransportCommunicator(transports.get(0), mailboxes.get(0), config, 0, () -> { });
        var receiver = new TransportCommunicator(transports.get(1), mailboxes.get(1), config, 0, () -> { });
        var sent = new AtomicInteger();
        try {
            Thread bulk = Thread.ofVirtual().start(() -> {
                for (int i = 0; i < messages; i++) {
                    sender.send(1, 2, pattern(size, i));
                    sent.incrementAndGet();
                }
            });
            // one sender's share is half the store (the other half stays for other senders)
            Await.until(() -> mailboxes.get(1).storedBytes() >= store / 2 - config.chunkBytes(),
                    Duration.ofSeconds(20), "rank 1's store of unexpected messages is nearly full (rank 0's share)");
            // The sender must end up waiting: its frame is queued because the socket takes no more.
            BulkConnection lane = transports.get(0).link(1).bulk();
            Await.until(() -> bulk.getState() == Thread.State.TIMED_WAITING && BulkProbes.queuedBytes(lane) > 0,
                    Duration.ofSeconds(20), "the sender waits with bytes queued on its bulk lane");
            assertThat(BulkProbes.queuedBytes(lane)).as("bytes queued on the bulk lane").isPositive();
            System.out.printf("bulk lane: %d of %d MiB sent while rank 1 receives nothing (store %d KiB)%n",
                    sent.get(), messages, mailboxes.get(1).storedBytes() >> 10);
            assertThat(sent.get()).as("messages sent while nobody receives").isLessThan(messages / 2);
            assertThat(mailboxes.get(1).storedBytes()).isLessThanOrEqualTo(store / 2 + config.chunkBytes());
            var got = new byte[size];
            for (int i = 0; i < messages; i++) {
                assertThat(receiver.recv(0, 2, got)).isEqualTo(size);
                assertThat(got).as("message %d", i).isEqualTo(pattern(size, i));
            }
            bulk.join();
        } finally {
            transports.forEach(QuicTransport::close);
        }
    }

    @Test
    void shouldRunCollectivesWhileThePointToPointLaneWaitsForAReceiverThatDoesNotReceive() {
        // One TCP connection per lane: a barrier or an allreduce must not wait behind point-to-point frames that
        // the peer does not read (its store is full and nobody receives). With both lanes on one connection the
        // collectives below time out.
        long store = 1 << 20;
        int size = 1 << 20;
        int messages = 32;
        var config = CONFIG.toBuilder().unexpectedMaxBytes(store).chunkBytes(256 << 10)
                .collectiveTimeout(Duration.ofSeconds(10)).build();
        try (var cluster = QuicTestCluster.start(2, config, LOOPBACK, BulkLaneOptions.defaults())) {
            BulkConnection p2p = cluster.transport(0).link(1).bulk(Lane.P2P);
            assertThat(p2p).as("the P2P lane's TCP connection").isNotNull();
            assertThat(cluster.transport(0).link(1).bulk(Lane.COLLECTIVE)).as("the COLLECTIVE lane's").isNotNull()
                    .isNotSameAs(p2p);
            cluster.run(c -> {
                if (c.rank() == 0) {
                    Thread backlog = Thread.ofVirtual().start(() -> {
                        for (int i = 0; i < messages; i++) {
                            c.send(1, 2, pattern(size, i));
                        }
                    });
                    Await.until(() -> BulkProbes.queuedBytes(p2p) > 0, Duration.ofSeconds(20),
                            "the sender waits with bytes queued on the P2P lane (the socket takes no more)");
                    runCollectives(c);
                    backlog.join();
                } else {
                    runCollectives(c);
                    var got = new byte[size];
                    for (int i = 0; i < messages; i++) {
                        assertThat(c.recv(0, 2, got)).isEqualTo(size);
                        assertThat(got).as("message %d", i).isEqualTo(pattern(size, i));
                    }
                }
                return null;
            });
        }
    }

    private static void runCollectives(io.nexar.Communicator c) {
        for (int i = 0; i < 20; i++) {
            float[] v = {c.rank() + 1, i};
            c.allReduce(v, io.nexar.ReduceOp.SUM);
            assertThat(v).as("allreduce %d", i).containsExactly(3f, 2f * i);
            c.barrier();
        }
    }

    @Test
    void shouldHandTheRestOfAFrameToTheWriterWhenTheSocketTakesOnlyPartOfIt() {
        // Small frames that the sender writes itself: once the receiver stops reading, the socket takes only part
        // of one, and the writer thread must finish it, in order, before the next.
        long store = 256 << 10;
        int size = 48 << 10; // one output buffer each: written by the sender's own thread while the lane is idle
        int messages = 1500; // ~70 MiB: more than the store and both socket buffers (loopback: up to 32 + 4 MiB)
        var config = CONFIG.toBuilder().unexpectedMaxBytes(store).chunkBytes(size).build();
        for (var mode : List.of(BulkLaneOptions.Mode.TLS, BulkLaneOptions.Mode.TCP_PLAIN)) {
            try (var cluster = QuicTestCluster.start(2, config, LOOPBACK, new BulkLaneOptions(mode, 0))) {
                cluster.run(c -> {
                    if (c.rank() == 0) {
                        for (int i = 0; i < messages; i++) {
                            c.send(1, 3, pattern(size, i));
                        }
                    } else {
                        BulkConnection p2p = cluster.transport(0).link(1).bulk(Lane.P2P);
                        Await.until(() -> BulkProbes.ownWrites(p2p)[1] > 0, Duration.ofSeconds(20),
                                "the socket took only part of a frame the sender wrote itself");
                        var got = new byte[size];
                        for (int i = 0; i < messages; i++) {
                            assertThat(c.recv(0, 3, got)).isEqualTo(size);
                            assertThat(got).as("%s message %d", mode, i).isEqualTo(pattern(size, i));
                        }
                    }
                    return null;
                });
                long[] own = BulkProbes.ownWrites(cluster.transport(0).link(1).bulk(Lane.P2P));
                System.out.printf("%s: %d frames written by the sender's thread, %d of them finished by the writer%n",
                        mode, own[0], own[1]);
                assertThat(own[0]).as("frames written by the sender's own thread").isPositive();
                assertThat(own[1]).as("frames the socket took only part of").isPositive();
            }
        }
    }

    @Test
    void shouldFinishAStartedFrameFromACopyAndRefuseTheNextAtTheDeadline() throws Exception {
        finishAStartedFrameFromACopy(BulkLaneOptions.defaults(), false);
    }

    /** The same on plain TCP from direct memory, where a large frame is written from where it lies (no output buffer). */
    @Test
    void shouldFinishAStartedDirectFrameFromACopyOnPlainTcp() throws Exception {
        finishAStartedFrameFromACopy(new BulkLaneOptions(BulkLaneOptions.Mode.TCP_PLAIN, 0), true);
    }

    private static void finishAStartedFrameFromACopy(BulkLaneOptions bulk, boolean direct) throws Exception {
        long store = 1 << 20;
        // Larger than both output buffers and the socket buffers together (loopback autotuning gives up to ~10 MiB),
        // so the lane stalls inside a frame, never at a frame's end, whatever the buffers: the frame in progress at
        // the deadline is the one finished from a copy (8 MiB frames made that depend on the buffer sizes).
        int frame = 32 << 20;
        int size = 2 * frame; // two frames per message: the receiver's store refuses a message's second frame
        var config = CONFIG.toBuilder().unexpectedMaxBytes(store).maxFrameBytes(2L * frame).chunkBytes(frame).build();
        var mailboxes = List.of(new Mailbox(store), new Mailbox(store));
        var transports = QuicTestCluster.form(2, config, LOOPBACK, QuicTestCluster::credentials, mailboxes::get,
                bulk);
        var receiver = new TransportCommunicator(transports.get(1), mailboxes.get(1), config, 0, () -> { });
        try {
            BulkConnection lane = transports.get(0).link(1).bulk();
            assertThat(lane).isNotNull();
            int sent = 0; // frames
            OperationTimeoutException timeout = null;
            while (timeout == null && sent < 16) {
                int message = sent / 2;
                int offset = (sent % 2) * frame;
                // The caller reuses its buffer at once: what the writer still needs must have been copied.
                byte[] buffer = Arrays.copyOfRange(pattern(size, message), offset, offset + frame);
                try {
                    sendFrame(transports.get(0), message, offset, buffer, size, Duration.ofSeconds(2), direct);
                    sent++;
                } catch (OperationTimeoutException e) {
                    timeout = e;
                }
                Arrays.fill(buffer, (byte) 0);
            }
            assertThat(timeout).as("a send that could not start before its deadline").isNotNull()
                    .hasMessageContaining("to take more data on its bulk lane");
            assertThat(BulkProbes.detachedFrames(lane)).as("frames finished from a copy").isEqualTo(1);
            int refused = sent;
            Thread rest = Thread.ofVirtual().start(() -> {
                for (int f = refused; f < 2 * (refused / 2 + 1); f++) { // the lane goes on: send the rest again
                    int offset = (f % 2) * frame;
                    sendFrame(transports.get(0), f / 2, offset, Arrays.copyOfRange(pattern(size, f / 2), offset,
                            offset + frame), size, Duration.ofSeconds(20), direct);
                }
            });
            var got = new byte[size];
            for (int i = 0; i <= refused / 2; i++) {
                assertThat(receiver.recv(0, 7, got)).isEqualTo(size);
                assertThat(got).as("message %d", i).isEqualTo(pattern(size, i));
            }
            rest.join();
        } finally {
            transports.forEach(QuicTransport::close);
        }
    }

    /** Sends one frame from {@code payload}, or from a native copy of it ({@code direct}) overwritten after. */
    private static void sendFrame(QuicTransport t, int message, int offset, byte[] payload, int size,
                                  Duration timeout, boolean direct) {
        if (!direct) {
            t.send(1, Lane.P2P, new Message.Data(0, 7, message, size, offset, MemorySegment.ofArray(payload)),
                    Deadline.after(timeout), ErrorContext.of(Operation.SEND));
            return;
        }
        try (var arena = java.lang.foreign.Arena.ofShared()) {
            MemorySegment copy = arena.allocate(payload.length);
            copy.copyFrom(MemorySegment.ofArray(payload));
            try {
                t.send(1, Lane.P2P, new Message.Data(0, 7, message, size, offset, copy), Deadline.after(timeout),
                        ErrorContext.of(Operation.SEND));
            } finally {
                copy.fill((byte) 0); // the caller reuses its memory at once: what is left must have been copied
            }
        }
    }

    @Test
    void shouldLeaveNoBulkLaneThreadAfterClose() {
        var cluster = QuicTestCluster.start(3, CONFIG, LOOPBACK, new BulkLaneOptions(BulkLaneOptions.Mode.TLS, 2048));
        var endpoints = new ArrayList<BulkEndpoint>();
        try {
            for (int r = 0; r < 3; r++) {
                BulkConnection lane = cluster.transport(r).link((r + 1) % 3).bulk();
                assertThat(lane).as("rank %d's bulk lane", r).isNotNull();
                endpoints.add(BulkProbes.endpoint(lane));
            }
            cluster.run(c -> {
                c.send((c.rank() + 1) % 3, 1, pattern(50_000, c.rank()));
                var got = new byte[50_000];
                c.recv((c.rank() + 2) % 3, 1, got);
                assertThat(got).isEqualTo(pattern(50_000, (c.rank() + 2) % 3));
                return null;
            });
            // per rank: accept, and a reader and a writer per peer and lane
            assertThat(endpoints.stream().mapToInt(e -> BulkProbes.liveThreads(e).size()).sum())
                    .as("threads while running").isGreaterThanOrEqualTo(3 * 9);
        } finally {
            cluster.close();
        }
        for (BulkEndpoint e : endpoints) {
            assertThat(BulkProbes.liveThreads(e)).as("bulk-lane threads after close").isEmpty();
        }
    }

    /** {@code size} bytes of a pattern that differs by {@code id} (and along the payload). */
    static byte[] pattern(int size, int id) {
        var b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + id * 7 + (i >>> 9));
        }
        return b;
    }
}
