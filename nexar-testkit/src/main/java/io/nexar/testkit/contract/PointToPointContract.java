package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.Communicator;
import io.nexar.ErrorCode;
import io.nexar.MessageSizeMismatchException;
import io.nexar.OperationCancelledException;
import io.nexar.device.HostAdapter;
import io.nexar.testkit.Await;
import io.nexar.testkit.TestCluster;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The point-to-point contract every transport must pass. A transport's test is a one-line subclass that says how
 * to start a {@link TestCluster}; the in-process transport runs it in nexar-testkit, network transports in their
 * own modules. Here: delivery, order, chunking, back-pressure, device buffers, random traffic, interruption. The
 * other cases are in the classes it extends: failures, timeouts and communicators in {@link PointToPointFailureCases},
 * the MPI cases (non-blocking, wildcards, probes, status, sendRecv) in {@link MpiPointToPointCases}, buffers in
 * {@link PointToPointBufferCases}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class PointToPointContract extends PointToPointFailureCases {

    /** For a transport's one-line subclass. */
    protected PointToPointContract() {
    }

    /**
     * Bytes the transport itself may hold for a receiver that receives nothing, beyond the unexpected-message store
     * (for example the kernel's socket buffers of a TCP lane): a sender finishes that many bytes of sends before it
     * has to wait. 0 for a transport that hands messages straight to the receiver's store.
     *
     * @return the bytes, 0 by default
     */
    protected long transportBufferedBytes() {
        return 0;
    }

    @Test
    void shouldDeliverEveryArrayTypeWithItsValues() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                if (c.rank() == 0) {
                    c.send(1, 1, new float[] {1.5f, -2f, Float.NaN, Float.MAX_VALUE});
                    c.send(1, 2, new double[] {Math.PI, -0.0});
                    c.send(1, 3, new int[] {Integer.MIN_VALUE, 7});
                    c.send(1, 4, new long[] {Long.MAX_VALUE, -1L});
                    c.send(1, 5, new byte[] {1, 2, 3});
                } else {
                    var f = new float[4];
                    assertThat(c.recv(0, 1, f)).isEqualTo(4);
                    assertThat(f).containsExactly(1.5f, -2f, Float.NaN, Float.MAX_VALUE);
                    var d = new double[2];
                    assertThat(c.recv(0, 2, d)).isEqualTo(2);
                    assertThat(d).containsExactly(Math.PI, -0.0);
                    var i = new int[2];
                    c.recv(0, 3, i);
                    assertThat(i).containsExactly(Integer.MIN_VALUE, 7);
                    var l = new long[2];
                    c.recv(0, 4, l);
                    assertThat(l).containsExactly(Long.MAX_VALUE, -1L);
                    var b = new byte[3];
                    assertThat(c.recv(0, 5, b)).isEqualTo(3);
                    assertThat(b).containsExactly(1, 2, 3);
                }
                return null;
            });
        }
    }

    @Test
    void shouldSendFloatsAsLittleEndianBytes() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                if (c.rank() == 0) {
                    c.send(1, 0, new float[] {1.0f});
                } else {
                    var b = new byte[4];
                    c.recv(0, 0, b);
                    assertThat(b).containsExactly(0x00, 0x00, (byte) 0x80, 0x3f);
                }
                return null;
            });
        }
    }

    @Test
    void shouldKeepOrderOfOneTagAcrossSizesAndChunks() {
        long seed = 0x5EED_0001L;
        System.out.println("seed=" + seed);
        var sizes = new Random(seed).ints(60, 0, 5000).toArray();
        try (var cluster = start(2, config().chunkBytes(1024).build())) {
            cluster.run(c -> {
                for (int i = 0; i < sizes.length; i++) {
                    if (c.rank() == 0) {
                        c.send(1, 9, pattern(sizes[i], i));
                    }
                }
                if (c.rank() == 1) {
                    for (int i = 0; i < sizes.length; i++) {
                        var got = new byte[5000];
                        int n = c.recv(0, 9, got);
                        assertThat(n).as("size of message %d (seed %d)", i, seed).isEqualTo(sizes[i]);
                        assertThat(Arrays.copyOf(got, n)).as("message %d", i).isEqualTo(pattern(sizes[i], i));
                    }
                }
                return null;
            });
        }
    }

    @Test
    void shouldKeepEarlyMessagesAndMatchThemByTag() {
        try (var cluster = start(2)) {
            var sent = new CountDownLatch(1);
            cluster.run(c -> {
                if (c.rank() == 0) {
                    for (int tag = 0; tag < 10; tag++) {
                        c.send(1, tag, new int[] {tag * 100});
                    }
                    sent.countDown();
                } else {
                    assertThat(sent.await(20, TimeUnit.SECONDS)).isTrue();
                    for (int tag = 9; tag >= 0; tag--) {
                        var x = new int[1];
                        c.recv(0, tag, x);
                        assertThat(x[0]).as("tag %d", tag).isEqualTo(tag * 100);
                    }
                }
                return null;
            });
        }
    }

    @Test
    void shouldMatchBySourceAmongManySenders() {
        try (var cluster = start(4)) {
            Map<Integer, int[]> got = cluster.onEachRank(c -> {
                if (c.rank() != 0) {
                    c.send(0, 3, new int[] {c.rank()});
                    return null;
                }
                var out = new int[4];
                for (int src = 3; src >= 1; src--) {
                    var x = new int[1];
                    c.recv(src, 3, x);
                    out[src] = x[0];
                }
                return out;
            });
            assertThat(got.get(0)).containsExactly(0, 1, 2, 3);
        }
    }

    @Test
    void shouldReportBothSizesWhenMessageIsLargerThanBuffer() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                if (c.rank() == 0) {
                    c.send(1, 4, new byte[100]);
                    c.send(1, 4, new byte[] {7, 8});
                } else {
                    assertThatThrownBy(() -> c.recv(0, 4, new byte[50]))
                            .isInstanceOfSatisfying(MessageSizeMismatchException.class, e -> {
                                assertThat(e.messageBytes()).isEqualTo(100);
                                assertThat(e.bufferBytes()).isEqualTo(50);
                                assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
                            })
                            .hasMessage("recv on rank 1 (world 2, comm 0, tag 4, peer 0) received a message of"
                                    + " 100 bytes"
                                    + " from rank 0 but the receive buffer holds only 50 bytes");
                    var b = new byte[10];
                    assertThat(c.recv(0, 4, b)).as("the next message still arrives, into a larger buffer")
                            .isEqualTo(2);
                    assertThat(b[0]).isEqualTo((byte) 7);
                }
                return null;
            });
        }
    }

    @Test
    void shouldDeliverEmptyMessagesAndSelfSends() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                c.send(c.rank(), 1, new long[] {c.rank() + 10L});
                c.send(1 - c.rank(), 2, new byte[0]);
                var mine = new long[1];
                c.recv(c.rank(), 1, mine);
                assertThat(mine[0]).isEqualTo(c.rank() + 10L);
                assertThat(c.recv(1 - c.rank(), 2, new byte[8])).isZero();
                return null;
            });
        }
    }

    @Test
    void shouldReassembleChunkedMessagesIntoNativeMemory() {
        int bytes = (1 << 20) + 13;
        try (var cluster = start(2, config().chunkBytes(4096).build())) {
            cluster.run(c -> {
                try (var arena = Arena.ofConfined()) {
                    MemorySegment seg = arena.allocate(bytes);
                    if (c.rank() == 0) {
                        seg.copyFrom(MemorySegment.ofArray(pattern(bytes, 3)));
                        c.send(1, 0, seg);
                    } else {
                        assertThat(c.recv(0, 0, seg)).isEqualTo(bytes);
                        assertThat(seg.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(pattern(bytes, 3));
                    }
                }
                return null;
            });
        }
    }

    @Test
    void shouldKeepPerTagOrderWithConcurrentSendersAndReceivers() {
        int threads = 4;
        int messages = 40;
        try (var cluster = start(2, config().chunkBytes(1024).build())) {
            cluster.run(c -> {
                var workers = new ArrayList<Thread>();
                var errors = new java.util.concurrent.ConcurrentLinkedQueue<Throwable>();
                for (int t = 0; t < threads; t++) {
                    final int tag = t;
                    workers.add(Thread.ofVirtual().start(() -> {
                        try {
                            for (int i = 0; i < messages; i++) {
                                if (c.rank() == 0) {
                                    c.send(1, tag, pattern(1000 + 300 * (i % 5), tag * 1000 + i));
                                } else {
                                    var got = new byte[3000];
                                    int n = c.recv(0, tag, got);
                                    assertThat(Arrays.copyOf(got, n)).as("tag %d message %d", tag, i)
                                            .isEqualTo(pattern(1000 + 300 * (i % 5), tag * 1000 + i));
                                }
                            }
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                    }));
                }
                for (Thread w : workers) {
                    w.join();
                }
                if (!errors.isEmpty()) {
                    throw new AssertionError(errors.peek());
                }
                return null;
            });
        }
    }

    @Test
    void shouldBackPressureSendersInsteadOfDroppingWhenStoreIsFull() {
        int size = 16 * 1024;
        int messages = 40 + Math.toIntExact(transportBufferedBytes() / size);
        long store = 128 * 1024;
        long bound = store / 2; // one sender's share of the store (the other half stays for the other senders)
        int chunk = 4096;
        try (var cluster = start(2, config().unexpectedMaxBytes(store).chunkBytes(chunk).build())) {
            var progress = new java.util.concurrent.atomic.AtomicInteger();
            cluster.run(c -> {
                if (c.rank() == 0) {
                    for (int i = 0; i < messages; i++) {
                        c.send(1, 1, pattern(size, i));
                        progress.incrementAndGet();
                    }
                } else {
                    // Post nothing until the store is (nearly) full: the sender must then wait, not drop.
                    Await.until(() -> cluster.unexpectedBytes(1) >= bound - size, Duration.ofSeconds(20),
                            "rank 1's store of unexpected messages is nearly full");
                    assertThat(cluster.unexpectedBytes(1)).isBetween(bound - size, bound + chunk);
                    assertThat(progress.get()).as("messages sent while nobody receives").isLessThan(messages);
                    var bytes = new byte[size];
                    for (int i = 0; i < messages; i++) {
                        c.recv(0, 1, bytes);
                        assertThat(bytes).as("message %d", i).isEqualTo(pattern(size, i));
                        assertThat(cluster.unexpectedBytes(1)).isLessThanOrEqualTo(bound + chunk);
                    }
                }
                return null;
            });
        }
    }

    @Test
    void shouldStageDeviceBuffersThroughTheirAdapter() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                try (var arena = Arena.ofConfined()) {
                    MemorySegment seg = arena.allocate(64);
                    if (c.rank() == 0) {
                        seg.fill((byte) 5);
                        c.send(1, 0, HostAdapter.wrap(seg));
                    } else {
                        assertThat(c.recv(0, 0, HostAdapter.wrap(seg))).isEqualTo(64);
                        assertThat(seg.get(ValueLayout.JAVA_BYTE, 63)).isEqualTo((byte) 5);
                    }
                }
                return null;
            });
        }
    }

    @Test
    void shouldDeliverRandomTrafficInPerPairPerTagOrder() {
        long seed = Long.getLong("nexar.test.seed", 0xC0FFEEL);
        System.out.println("shouldDeliverRandomTrafficInPerPairPerTagOrder seed=" + seed);
        int world = 3;
        int perRank = 60;
        // plan[src] = list of (dest, tag, size) in send order
        var plan = new ArrayList<List<int[]>>();
        var random = new Random(seed);
        for (int src = 0; src < world; src++) {
            var list = new ArrayList<int[]>();
            for (int i = 0; i < perRank; i++) {
                list.add(new int[] {random.nextInt(world), random.nextInt(3), random.nextInt(3000)});
            }
            plan.add(list);
        }
        try (var cluster = start(world, config().chunkBytes(1024).build())) {
            cluster.run(c -> {
                int me = c.rank();
                Thread sender = Thread.ofVirtual().start(() -> {
                    int i = 0;
                    for (int[] m : plan.get(me)) {
                        c.send(m[0], m[1], pattern(m[2], me * 10_000 + i++));
                    }
                });
                // Receive, per source, in an order that differs from the send order across tags.
                for (int src = 0; src < world; src++) {
                    for (int tag = 2; tag >= 0; tag--) {
                        int i = 0;
                        for (int[] m : plan.get(src)) {
                            if (m[0] == me && m[1] == tag) {
                                var buf = new byte[3000];
                                int n = c.recv(src, tag, buf);
                                assertThat(Arrays.copyOf(buf, n)).as("seed %d src %d msg %d", seed, src, i)
                                        .isEqualTo(pattern(m[2], src * 10_000 + i));
                            }
                            i++;
                        }
                    }
                }
                sender.join();
                return null;
            });
        }
    }

    /**
     * Issue 14: a receive blocked on a {@code dup()} of the world and interrupted threw a CompletionException wrapping
     * the OperationCancelledException. The blocking call must throw the documented exception itself and leave the
     * thread's interrupt flag set. The interrupt fires once the receiver is seen waiting (an event, not a timer).
     */
    @Test
    void shouldThrowOperationCancelledItselfWhenABlockedRecvIsInterrupted() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                try (Communicator dup = c.dup()) {
                    if (c.rank() == 1) {
                        var failure = new java.util.concurrent.atomic.AtomicReference<Throwable>();
                        var flagSet = new java.util.concurrent.atomic.AtomicBoolean();
                        Thread receiver = Thread.ofPlatform().start(() -> {
                            try {
                                dup.recv(0, 31, new byte[8]);
                            } catch (Throwable t) {
                                failure.set(t);
                                flagSet.set(Thread.currentThread().isInterrupted());
                            }
                        });
                        Await.until(() -> receiver.getState() == Thread.State.WAITING
                                || receiver.getState() == Thread.State.TIMED_WAITING || !receiver.isAlive(),
                                Duration.ofSeconds(10), "the receiver waits in recv (or ends)");
                        receiver.interrupt();
                        receiver.join();
                        assertThat(failure.get()).isInstanceOf(OperationCancelledException.class)
                                .hasMessageContaining("interrupted");
                        assertThat(flagSet).isTrue();
                    }
                    dup.barrier(); // the communicator still works for the other tags and operations
                }
                return null;
            });
        }
    }
}
