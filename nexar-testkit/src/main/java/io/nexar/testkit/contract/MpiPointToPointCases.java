package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.Communicator;
import io.nexar.MessageSizeMismatchException;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PointToPointHandle;
import io.nexar.Status;
import io.nexar.testkit.Await;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The MPI part of the point-to-point contract (issue 18): non-blocking handles, wildcards with MPI's matching order,
 * probes, statuses, sendRecv ({@link PointToPointBufferCases} has byte buffers and array slices).
 * {@link PointToPointContract} extends it, so every transport runs these cases.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class MpiPointToPointCases extends PointToPointBufferCases {

    /** For {@link PointToPointContract}. */
    protected MpiPointToPointCases() {
    }

    @Test
    void shouldCompleteIsendAndIrecvHandlesWithTheirStatus() throws Exception {
        try (var cluster = start(2, config().chunkBytes(1024).build())) {
            var posted = new CountDownLatch(1);
            cluster.run(c -> {
                if (c.rank() == 0) {
                    posted.await();
                    byte[] big = pattern(5000, 1);
                    PointToPointHandle a = c.isend(1, 5, MemorySegment.ofArray(big));
                    PointToPointHandle b = c.isend(1, 5, MemorySegment.ofArray(pattern(10, 2)));
                    assertThat(a.await()).isEqualTo(new Status(1, 5, 5000));
                    assertThat(b.toCompletableFuture().get(20, TimeUnit.SECONDS)).isEqualTo(new Status(1, 5, 10));
                    assertThat(a.cancel()).as("a send cannot be cancelled").isFalse();
                } else {
                    var first = new byte[6000];
                    var second = new byte[6000];
                    PointToPointHandle h1 = c.irecv(0, 5, MemorySegment.ofArray(first));
                    PointToPointHandle h2 = c.irecv(0, 5, MemorySegment.ofArray(second));
                    assertThat(h1.isDone()).isFalse();
                    posted.countDown();
                    var f2 = h2.toCompletableFuture();
                    assertThat(h1.await()).isEqualTo(new Status(0, 5, 5000));
                    assertThat(Arrays.copyOf(first, 5000)).isEqualTo(pattern(5000, 1));
                    assertThat(f2.get(20, TimeUnit.SECONDS)).isEqualTo(new Status(0, 5, 10));
                    assertThat(h2.isDone()).isTrue();
                    assertThat(Arrays.copyOf(second, 10)).isEqualTo(pattern(10, 2));
                }
                return null;
            });
        }
    }

    @Test
    void shouldPollAnIrecvUntilItsMessageArrives() {
        try (var cluster = start(2)) {
            var polledEmpty = new CountDownLatch(1);
            cluster.run(c -> {
                if (c.rank() == 0) {
                    polledEmpty.await();
                    c.send(1, 2, new int[] {42});
                } else {
                    var got = new int[1];
                    var h = c.irecv(0, 2, MemorySegment.ofArray(got));
                    assertThat(h.isDone()).isFalse();
                    polledEmpty.countDown();
                    Await.until(h::isDone, Duration.ofSeconds(10), "isDone() of the receive (MPI_Test in a loop)");
                    assertThat(h.await()).isEqualTo(new Status(0, 2, 4));
                    assertThat(got[0]).isEqualTo(42);
                }
                return null;
            });
        }
    }

    @Test
    void shouldCancelAPendingIrecvAndLeaveTheMessageForTheNextReceive() {
        try (var cluster = start(2)) {
            var cancelled = new CountDownLatch(1);
            cluster.run(c -> {
                if (c.rank() == 0) {
                    cancelled.await();
                    c.send(1, 7, new long[] {7L});
                } else {
                    var h = c.irecv(0, 7, MemorySegment.ofArray(new long[1]));
                    assertThat(h.cancel()).isTrue();
                    assertThat(h.cancel()).as("only once").isFalse();
                    assertThat(h.isDone()).isTrue();
                    assertThatThrownBy(h::await).isInstanceOf(OperationCancelledException.class)
                            .hasMessageContaining("recv on rank 1").hasMessageContaining("was cancelled");
                    assertThat(failure(h)).isInstanceOf(OperationCancelledException.class);
                    cancelled.countDown();
                    var got = new long[1];
                    assertThat(c.recv(0, 7, got)).isEqualTo(1);
                    assertThat(got[0]).isEqualTo(7L);
                }
                return null;
            });
        }
    }

    @Test
    void shouldThrowTheDocumentedExceptionsFromAwaitNotWrappers() {
        try (var cluster = start(2, config().p2pTimeout(Duration.ofMillis(300)).build())) {
            var waited = new CountDownLatch(1);
            cluster.run(c -> {
                if (c.rank() == 0) {
                    waited.await();
                    c.send(1, 1, new byte[100]);
                } else {
                    var never = c.irecv(0, 3, MemorySegment.ofArray(new byte[4]));
                    assertThatThrownBy(never::await).isInstanceOfSatisfying(OperationTimeoutException.class,
                            e -> assertThat(e.timeout()).isEqualTo(Duration.ofMillis(300)))
                            .hasMessageContaining("recv on rank 1 (world 2, comm 0, tag 3, peer 0) timed out");
                    assertThatThrownBy(() -> c.probe(0, 3)).isInstanceOf(OperationTimeoutException.class)
                            .hasMessageStartingWith("probe on rank 1");
                    var small = c.irecv(0, 1, MemorySegment.ofArray(new byte[10]));
                    assertThatThrownBy(() -> small.await(Duration.ZERO))
                            .as("the wait ends, the receive goes on").isInstanceOf(OperationTimeoutException.class)
                            .hasMessageContaining("still pending");
                    assertThat(small.isDone()).isFalse();
                    waited.countDown();
                    assertThatThrownBy(small::await).isInstanceOfSatisfying(MessageSizeMismatchException.class,
                            e -> assertThat(e.messageBytes()).isEqualTo(100));
                    assertThat(failure(small)).isInstanceOf(MessageSizeMismatchException.class);
                }
                return null;
            });
        }
    }

    /** Three senders, one receiver with ANY_SOURCE and ANY_TAG: each sender's messages arrive in its send order. */
    @Test
    void shouldMatchAnySourceInEachSendersOrder() {
        long seed = Long.getLong("nexar.test.seed", 0xA11_50CEL);
        System.out.println("shouldMatchAnySourceInEachSendersOrder seed=" + seed);
        int perSender = 30;
        var sizes = new Random(seed).ints(4 * perSender, 8, 3000).toArray();
        try (var cluster = start(4, config().chunkBytes(1024).build())) {
            cluster.run(c -> {
                int me = c.rank();
                if (me != 0) {
                    for (int i = 0; i < perSender; i++) {
                        byte[] m = pattern(sizes[me * perSender + i], me * 1000 + i);
                        m[0] = (byte) me;
                        m[1] = (byte) i;
                        c.send(0, 10 + i % 3, m);
                    }
                    return null;
                }
                int[] next = new int[4];
                var buf = new byte[3000];
                for (int k = 0; k < 3 * perSender; k++) {
                    Status st = c.recvStatus(Communicator.ANY_SOURCE, Communicator.ANY_TAG, MemorySegment.ofArray(buf));
                    int src = st.source();
                    int i = next[src]++;
                    assertThat(buf[0]).as("source in the status (seed %d)", seed).isEqualTo((byte) src);
                    assertThat(buf[1]).as("message %d of rank %d in send order (seed %d)", i, src, seed)
                            .isEqualTo((byte) i);
                    assertThat(st.tag()).isEqualTo(10 + i % 3);
                    assertThat(st.byteSize()).isEqualTo(sizes[src * perSender + i]);
                }
                assertThat(next).containsExactly(0, perSender, perSender, perSender);
                assertThat(c.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG)).isEmpty();
                return null;
            });
        }
    }

    /** ANY_TAG takes the oldest message of the sender, whatever the tags of later ones (non-overtaking). */
    @Test
    void shouldTakeTheOldestMessageWithAnyTag() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                if (c.rank() == 0) {
                    c.send(1, 3, new int[] {3});
                    c.send(1, 1, new int[] {1});
                    c.send(1, 2, new int[] {2});
                } else {
                    assertThat(c.probe(0, 2)).as("the last one arrived").isEqualTo(new Status(0, 2, 4));
                    var v = new int[1];
                    for (int expected : new int[] {3, 1, 2}) {
                        Status st = c.recvStatus(0, Communicator.ANY_TAG, MemorySegment.ofArray(v));
                        assertThat(st.tag()).isEqualTo(expected);
                        assertThat(v[0]).isEqualTo(expected);
                    }
                }
                return null;
            });
        }
    }

    /** A message goes to the earliest posted receive that matches it, wildcard or not. */
    @Test
    void shouldGiveEachMessageToTheEarliestPostedMatchingReceive() {
        try (var cluster = start(2)) {
            var posted = new CountDownLatch(1);
            cluster.run(c -> {
                if (c.rank() == 0) {
                    posted.await();
                    for (int i = 1; i <= 4; i++) {
                        c.send(1, 4, new int[] {i});
                    }
                } else {
                    int[][] got = new int[4][1];
                    var handles = List.of(
                            c.irecv(Communicator.ANY_SOURCE, 4, MemorySegment.ofArray(got[0])),
                            c.irecv(0, 4, MemorySegment.ofArray(got[1])),
                            c.irecv(0, Communicator.ANY_TAG, MemorySegment.ofArray(got[2])),
                            c.irecv(Communicator.ANY_SOURCE, Communicator.ANY_TAG, MemorySegment.ofArray(got[3])));
                    posted.countDown();
                    for (int i = 3; i >= 0; i--) {
                        assertThat(handles.get(i).await()).isEqualTo(new Status(0, 4, 4));
                    }
                    assertThat(got).isDeepEqualTo(new int[][] {{1}, {2}, {3}, {4}});
                }
                return null;
            });
        }
    }

    @Test
    void shouldProbeAMessageOfUnknownSizeWithoutReceivingIt() {
        try (var cluster = start(2, config().chunkBytes(1024).build())) {
            var probedEmpty = new CountDownLatch(1);
            cluster.run(c -> {
                if (c.rank() == 0) {
                    probedEmpty.await();
                    c.send(1, 9, pattern(3001, 9));
                } else {
                    assertThat(c.iprobe(Communicator.ANY_SOURCE, Communicator.ANY_TAG)).isEmpty();
                    probedEmpty.countDown();
                    Status st = c.probe(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                    assertThat(st).isEqualTo(new Status(0, 9, 3001));
                    assertThat(c.iprobe(0, 9)).contains(st);
                    assertThat(c.iprobe(0, 8)).isEmpty();
                    var exact = new byte[Math.toIntExact(st.byteSize())];
                    assertThat(c.recvStatus(st.source(), st.tag(), MemorySegment.ofArray(exact))).isEqualTo(st);
                    assertThat(exact).isEqualTo(pattern(3001, 9));
                    assertThat(c.iprobe(0, 9)).isEmpty();
                }
                return null;
            });
        }
    }

    /** Statuses and probes number sources in the sub-communicator, not the world. */
    @Test
    void shouldNumberSourcesInTheCommunicatorsOwnRanks() {
        try (var cluster = start(3)) {
            cluster.run(c -> {
                try (Communicator rev = c.split(0, -c.rank())) { // world rank r is rank 2 - r
                    if (rev.rank() != 0) {
                        rev.send(0, rev.rank(), new int[] {c.rank()});
                    } else {
                        Status st = rev.probe(1, Communicator.ANY_TAG);
                        assertThat(st).isEqualTo(new Status(1, 1, 4));
                        var v = new int[1];
                        var seen = new ArrayList<Integer>();
                        for (int k = 0; k < 2; k++) {
                            Status s = rev.recvStatus(Communicator.ANY_SOURCE, Communicator.ANY_TAG,
                                    MemorySegment.ofArray(v));
                            assertThat(s.tag()).isEqualTo(s.source());
                            assertThat(v[0]).as("world rank of sub-rank %d", s.source()).isEqualTo(2 - s.source());
                            seen.add(s.source());
                        }
                        assertThat(seen).containsExactlyInAnyOrder(1, 2);
                    }
                }
                return null;
            });
        }
    }

    /** A ring shift with messages larger than the unexpected store, and an exchange with oneself. */
    @Test
    void shouldSendRecvInARingAndWithItselfWithoutDeadlock() {
        int bytes = 256 * 1024;
        try (var cluster = start(3, config().chunkBytes(4096).unexpectedMaxBytes(16 * 1024).build())) {
            cluster.run(c -> {
                int me = c.rank();
                int n = c.worldSize();
                var in = new byte[bytes];
                Status st = c.sendRecv((me + 1) % n, 1, MemorySegment.ofArray(pattern(bytes, me)),
                        (me + n - 1) % n, 1, MemorySegment.ofArray(in));
                assertThat(st).isEqualTo(new Status((me + n - 1) % n, 1, bytes));
                assertThat(in).isEqualTo(pattern(bytes, (me + n - 1) % n));
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment confined = arena.allocate(16);
                    Status self = c.sendRecv(me, 2, MemorySegment.ofArray(pattern(16, 40 + me)), me, 2, confined);
                    assertThat(self).isEqualTo(new Status(me, 2, 16));
                    assertThat(confined.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(pattern(16, 40 + me));
                }
                return null;
            });
        }
    }

    /**
     * An isend followed at once by a send of the same thread, while the receiver's store is full: the isend transmits
     * on its own thread, and if the send's first chunk went ahead of it on the lane, the receiver would refuse that
     * chunk (not the oldest missing message) and the lane would hold the isend's message back until the timeout.
     */
    @Test
    void shouldNotLetASendOvertakeAnEarlierIsendThroughAFullStore() {
        int size = 8 * 1024;
        long bound = 16 * 1024; // the sender's share: half of the store
        try (var cluster = start(2, config().unexpectedMaxBytes(2 * bound).chunkBytes(4096)
                .p2pTimeout(Duration.ofSeconds(8)).build())) {
            var full = new CountDownLatch(1);
            cluster.run(c -> {
                if (c.rank() == 0) {
                    c.send(1, 9, pattern(size, 0)); // fill the receiver's store
                    c.send(1, 9, pattern(size, 1));
                    full.await();
                    for (int round = 0; round < 4; round++) {
                        var first = c.isend(1, 1, MemorySegment.ofArray(pattern(size, 10 + round)));
                        c.send(1, 2, pattern(size, 20 + round));
                        first.await();
                    }
                } else {
                    Await.until(() -> cluster.unexpectedBytes(1) >= bound, Duration.ofSeconds(10),
                            "rank 1 stored both fillers");
                    full.countDown();
                    var got = new byte[size];
                    for (int round = 0; round < 4; round++) {
                        assertThat(c.recvStatus(0, 1, MemorySegment.ofArray(got))).isEqualTo(new Status(0, 1, size));
                        assertThat(got).isEqualTo(pattern(size, 10 + round));
                        assertThat(c.recvStatus(0, 2, MemorySegment.ofArray(got))).isEqualTo(new Status(0, 2, size));
                        assertThat(got).isEqualTo(pattern(size, 20 + round));
                    }
                    for (int i = 0; i < 2; i++) {
                        c.recv(0, 9, got);
                        assertThat(got).isEqualTo(pattern(size, i));
                    }
                }
                return null;
            });
        }
    }

    /** What the handle's future failed with, itself (a get() wraps it in one ExecutionException, nothing more). */
    private static Throwable failure(PointToPointHandle h) throws InterruptedException, TimeoutException {
        try {
            Status st = h.toCompletableFuture().get(20, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure, got " + st);
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
