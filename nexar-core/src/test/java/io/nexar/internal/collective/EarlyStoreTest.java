package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.OperationTimeoutException;
import io.nexar.ReduceOp;
import io.nexar.internal.collective.EarlyStore.OpKey;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InProcessFabric;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bound of the early-chunk store: what it takes at its limit, what it refuses, what frees room, and the error a
 * sender gets when the receiver never makes room.
 */
@Timeout(10)
class EarlyStoreTest {
    private static final long BOUND = 100;
    private final ReentrantLock lock = new ReentrantLock();
    private final EarlyStore store = new EarlyStore(BOUND);

    /** A chunk of {@code bytes} bytes of operation {@code seq} of communicator 0. */
    static Message.Collective chunk(long seq, int bytes) {
        var fp = new Fingerprint(Operation.BROADCAST, DataType.U8, null, 1, bytes);
        return new Message.Collective(0, seq, 0, fp.operationCode(), fp.typeCode(), fp.opCode(), 1, bytes, bytes, 0,
                MemorySegment.ofArray(new byte[bytes]));
    }

    /** Runs {@code body} under a lock, as a communicator shard's would be held (the store takes its own inside). */
    private void locked(Runnable body) {
        lock.lock();
        try {
            body.run();
        } finally {
            lock.unlock();
        }
    }

    /** As {@link #locked(Runnable)}, with a result. */
    private <T> T locked(java.util.function.Supplier<T> body) {
        lock.lock();
        try {
            return body.get();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void takesChunksUpToExactlyItsBound() {
        assertThat(store.holdEarly(0, 0, 1, chunk(0, 10))).isTrue();
        assertThat(store.holdEarly(0, 0, 2, chunk(0, 50))).isTrue();
        assertThat(store.holdEarly(0, 1, 1, chunk(1, 40))).as("10 + 40 is rank 1's share, 50 + 50 the"
                + " bound itself").isTrue();
        assertThat(store.bytes()).isEqualTo(BOUND);
        assertThat(store.holdEarly(0, 2, 2, chunk(2, 1))).as("one byte over the bound").isFalse();
        assertThat(store.bytes()).isEqualTo(BOUND);
        assertThat(store.takeEarly(0, 2)).as("a refused chunk leaves nothing behind").isNull();
    }

    @Test
    void takesOneChunkOverTheBoundFromASenderItHoldsNothingOf() {
        assertThat(store.hold(1, chunk(0, 90))).isNotNull();
        // rank 2 has nothing stored: it must be able to make progress even though the store is nearly full
        StoredChunk fromTwo = store.hold(2, chunk(0, 90));
        assertThat(fromTwo).isNotNull();
        assertThat(store.bytes()).as("over the bound by one chunk of rank 2").isEqualTo(180);
        assertThat(store.hold(2, chunk(1, 1))).as("rank 2 now has a chunk stored").isNull();
        assertThat(store.hold(1, chunk(1, 1))).isNull();
        assertThat(store.hold(3, chunk(0, 1000))).as("rank 3's first chunk, however large").isNotNull();
    }

    @Test
    void emptyChunksAlwaysFitAndAreNotCounted() {
        assertThat(store.hold(1, chunk(0, 100))).isNotNull();
        assertThat(store.hold(1, chunk(1, 0))).isNotNull();
        assertThat(store.holdEarly(0, 2, 1, chunk(2, 0))).isTrue();
        assertThat(store.bytes()).isEqualTo(100);
    }

    @Test
    void releasingAChunkMakesRoomForItsSender() {
        StoredChunk first = store.hold(1, chunk(0, 80));
        assertThat(store.hold(1, chunk(1, 30))).isNull();
        locked(() -> store.release(first));
        assertThat(store.bytes()).isZero();
        assertThat(store.hold(1, chunk(1, 30))).isNotNull();
        assertThat(store.bytes()).isEqualTo(30);
    }

    @Test
    void aStoredChunkIsACopyThatOutlivesTheTransportsBuffer() {
        Message.Collective c = chunk(0, 4);
        c.payload().fill((byte) 7);
        StoredChunk s = store.hold(1, c);
        c.payload().fill((byte) 0); // the transport reuses its frame
        assertThat(s.message().payload().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .containsExactly(7, 7, 7, 7);
        assertThat(s.worldSrc()).isEqualTo(1);
    }

    @Test
    void aRecycledChunkIsRefilledWithTheNextChunksBytesKeepingItsBufferForTheSameSize() {
        Message.Collective c = chunk(0, 8);
        c.payload().fill((byte) 7);
        StoredChunk first = store.hold(1, c);
        MemorySegment firstPayload = first.message().payload();
        locked(() -> store.release(first));
        store.recycle(first);

        Message.Collective next = chunk(3, 8);
        next.payload().fill((byte) 9);
        StoredChunk second = store.hold(2, next);
        assertThat(second).as("the recycled chunk").isSameAs(first);
        assertThat(second.message().payload()).as("its buffer, same size").isSameAs(firstPayload);
        assertThat(second.message().payload().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly(9);
        assertThat(second.message().opSeq()).isEqualTo(3);
        assertThat(second.worldSrc()).isEqualTo(2);

        locked(() -> store.release(second));
        store.recycle(second);
        Message.Collective larger = chunk(4, 12);
        larger.payload().fill((byte) 5);
        StoredChunk third = store.hold(1, larger);
        assertThat(third.message().payload().byteSize()).as("a chunk of another size gets its own buffer")
                .isEqualTo(12);
        assertThat(third.message().payload().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly(5);
        assertThat(store.bytes()).isEqualTo(12);
    }

    @Test
    void droppingACommunicatorFreesOnlyItsChunksAndAborts() {
        var other = new Message.Collective(5, 0, 0, 2, 6, 0, 1, 50, 50, 0, MemorySegment.ofArray(new byte[50]));
        assertThat(store.holdEarly(0, 0, 1, chunk(0, 40))).isTrue();
        assertThat(store.holdEarly(5, 0, 2, other)).isTrue();
        store.holdAbort(new OpKey(5, 1), 2, new Message.CollectiveAbort(5, 1, io.nexar.internal.protocol.AbortReason
                .FAILED, 0, -1, "gone"), null);
        locked(() -> store.dropCommunicator(5));
        assertThat(store.bytes()).isEqualTo(40);
        assertThat(locked(() -> store.takeEarly(5, 0))).isNull();
        assertThat(store.takeAbort(new OpKey(5, 1))).isNull();
        assertThat(locked(() -> store.takeEarly(0, 0))).hasSize(1);
    }

    @Test
    void keepsTheFirstAbortOfAnOperationAndItsSender() {
        var first = new Message.CollectiveAbort(0, 3, io.nexar.internal.protocol.AbortReason.FAILED, 0, -1, "first");
        var second = new Message.CollectiveAbort(0, 3, io.nexar.internal.protocol.AbortReason.FAILED, 0, -1, "second");
        store.holdAbort(new OpKey(0, 3), 2, first, null);
        store.holdAbort(new OpKey(0, 3), 1, second, null);
        assertThat(store.isEmpty()).isFalse();
        assertThat(store.takeAbort(new OpKey(0, 3))).isSameAs(first);
        assertThat(store.abortSender(new OpKey(0, 3))).isEqualTo(2);
        assertThat(store.isEmpty()).isTrue();
    }

    @Test
    void afterCloseNothingIsCountedAndReleasesAreIgnored() {
        StoredChunk s = store.hold(1, chunk(0, 60));
        locked(store::close);
        assertThat(store.bytes()).isZero();
        locked(() -> store.release(s));
        assertThat(store.bytes()).as("a release after close does not go negative").isZero();
    }

    @Test
    void theEngineRefusesWhatTheStoreCannotTakeAndTakesItOnceItsOperationIsPosted() throws Exception {
        var engine = new CollectiveEngine(BOUND);
        assertThat(engine.onMessage(1, chunk(0, 80))).isEqualTo(Delivery.ACCEPTED);
        assertThat(engine.onMessage(1, chunk(1, 80))).isEqualTo(Delivery.FULL);
        assertThat(engine.deliverWaiting(1, chunk(1, 80), System.nanoTime())).as("no room by the deadline").isFalse();
        assertThat(engine.storedBytes()).isEqualTo(80);

        // operation 0 is posted and its round opened: its chunk leaves the store, operation 1's chunk fits
        MemorySegment out = MemorySegment.ofArray(new byte[80]);
        var spec = new OpSpec(Operation.BROADCAST, DataType.U8, null, 80, 1, null, null, false);
        Schedule schedule = new BinomialBroadcast().plan(0, 2, spec);
        OpState op = engine.post(Group.world(0, 2), new Fingerprint(Operation.BROADCAST, DataType.U8, null, 1, 80),
                schedule, DataType.U8, null, new MemorySegment[] {out, out, MemorySegment.NULL});
        engine.open(op, 0, schedule.rounds().get(0));
        assertThat(engine.storedBytes()).isZero();
        assertThat(engine.failure(op)).isNull();
        assertThat(engine.onMessage(1, chunk(1, 80))).isEqualTo(Delivery.ACCEPTED);
    }

    @Test
    void aSenderWhoseReceiverNeverMakesRoomTimesOutNamingTheFullStore() {
        var config = NexarConfig.builder().unexpectedMaxBytes(64).build();
        var fabric = InProcessFabric.create(2, config);
        var context = io.nexar.ErrorContext.of(Operation.ALL_REDUCE);
        var fp = new Fingerprint(Operation.ALL_REDUCE, DataType.F32, ReduceOp.SUM, Fingerprint.DENSE, 16);
        Message.Collective first = new Message.Collective(0, 0, 0, fp.operationCode(), fp.typeCode(), fp.opCode(),
                -1, 16, 64, 0, MemorySegment.ofArray(new byte[64]));
        Message.Collective second = new Message.Collective(0, 1, 0, fp.operationCode(), fp.typeCode(), fp.opCode(),
                -1, 16, 64, 0, MemorySegment.ofArray(new byte[64]));
        fabric.endpoint(0).send(1, Lane.COLLECTIVE, first, Deadline.after(Duration.ofSeconds(5)), context);

        assertThatThrownBy(() -> fabric.endpoint(0).send(1, Lane.COLLECTIVE, second,
                Deadline.after(Duration.ofMillis(100)), context))
                .isInstanceOf(OperationTimeoutException.class)
                .hasMessageContaining("rank 1 to receive (its store of unexpected messages is full");
    }

    @Test
    void aSenderHeldAtTheBoundIsTakenOnceTheReceiverMakesRoom() throws Exception {
        var engine = new CollectiveEngine(BOUND);
        assertThat(engine.onMessage(1, chunk(0, 80))).isEqualTo(Delivery.ACCEPTED);
        var sender = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return engine.deliverWaiting(1, chunk(1, 80), System.nanoTime() + Duration.ofMinutes(1).toNanos());
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, r -> Thread.ofVirtual().start(r));

        MemorySegment out = MemorySegment.ofArray(new byte[80]); // operation 0 takes its chunk out of the store
        var spec = new OpSpec(Operation.BROADCAST, DataType.U8, null, 80, 1, null, null, false);
        Schedule schedule = new BinomialBroadcast().plan(0, 2, spec);
        OpState op = engine.post(Group.world(0, 2), new Fingerprint(Operation.BROADCAST, DataType.U8, null, 1, 80),
                schedule, DataType.U8, null, new MemorySegment[] {out, out, MemorySegment.NULL});
        engine.open(op, 0, schedule.rounds().get(0));

        assertThat(sender.get(5, java.util.concurrent.TimeUnit.SECONDS)).as("taken long before its deadline").isTrue();
        assertThat(engine.storedBytes()).isEqualTo(80);
    }
}
