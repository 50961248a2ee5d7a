package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.ReduceOp;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.PayloadSink;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Chunks claimed when their header arrives and written piece by piece as their frame is read
 * ({@link CollectiveEngine#claim}, {@link ChunkClaim}): the pieces land in the receive's target (copied or reduced),
 * the round completes at the last one, a chunk that does not fit is left to the whole-frame path, and an operation
 * that ends stops its claims without waiting for bytes that may never come, but never while a piece is written.
 *
 * <p>The operation: this process is rank 0 of two; a ring allreduce of {@value #COUNT} I32 elements, so round 0
 * receives block 0 of rank 1's input and reduces it with rank 0's own (output = input + received).
 */
@Timeout(10)
class ChunkClaimTest {
    private static final int COUNT = 8;
    private static final Group WORLD = Group.world(0, 2);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;

    private final CollectiveEngine engine = new CollectiveEngine(1 << 20);
    private final Fingerprint fp = new Fingerprint(Operation.ALL_REDUCE, DataType.I32, ReduceOp.SUM, -1, COUNT);
    private final MemorySegment in = MemorySegment.ofArray(new int[] {1, 2, 3, 4, 5, 6, 7, 8});
    private final MemorySegment out = MemorySegment.ofArray(new int[COUNT]);

    private OpState postAndOpen() {
        var spec = new OpSpec(Operation.ALL_REDUCE, DataType.I32, ReduceOp.SUM, COUNT, -1, null, null, false);
        Schedule schedule = RingAllReduce.plain().plan(0, 2, spec);
        OpState op = engine.post(WORLD, fp, schedule, DataType.I32, ReduceOp.SUM,
                new MemorySegment[] {in, out, MemorySegment.NULL});
        engine.open(op, 0, schedule.rounds().get(0));
        return op;
    }

    /** The header of rank 1's round-0 chunk: block 0 (4 elements, 16 bytes), from byte {@code offset}. */
    private Message.Collective header(int step, long offset) {
        return new Message.Collective(0, 0, step, fp.operationCode(), fp.typeCode(), fp.opCode(), -1, COUNT, 16,
                offset, MemorySegment.NULL);
    }

    private static MemorySegment ints(int... v) {
        return MemorySegment.ofArray(v);
    }

    @Test
    void piecesAreReducedIntoTheTargetAndTheLastOneCompletesTheRound() throws Exception {
        OpState op = postAndOpen();
        PayloadSink sink = engine.claim(1, header(0, 0), 16);
        assertThat(sink).isNotNull();
        assertThat(sink.direct()).as("a reducing receive goes through accept").isNull();
        assertThat(sink.grain()).isEqualTo(4);
        assertThat(sink.begin()).isTrue();
        sink.accept(ints(10, 20), 0);
        sink.pause();
        assertThat(op.getAsBoolean()).as("half the bytes are in").isFalse();
        assertThat(sink.begin()).isTrue();
        sink.accept(ints(30, 40), 8);
        sink.pause();
        sink.complete();

        assertThat(engine.awaitRound(op, System.nanoTime())).isTrue();
        assertThat(engine.failure(op)).isNull();
        assertThat(out.asSlice(0, 16).toArray(I32)).containsExactly(11, 22, 33, 44);
        engine.end(op);
    }

    @Test
    void aChunkThatDoesNotFitIsLeftToTheWholeFramePath() {
        OpState op = postAndOpen();
        assertThat(engine.claim(1, header(0, 2), 16)).as("offset not a whole element").isNull();
        assertThat(engine.claim(1, header(0, 0), 20)).as("more bytes than the receive").isNull();
        var other = new Message.Collective(0, 0, 0, fp.operationCode(), fp.typeCode(), fp.opCode(), -1, COUNT + 1, 16,
                0, MemorySegment.NULL);
        assertThat(engine.claim(1, other, 16)).as("another count: the whole frame reports the mismatch").isNull();
        assertThat(engine.claim(1, new Message.Collective(0, 5, 0, fp.operationCode(), fp.typeCode(), fp.opCode(), -1,
                COUNT, 16, 0, MemorySegment.NULL), 16)).as("an operation not posted yet").isNull();
        assertThat(engine.failure(op)).isNull();
        engine.end(op);
    }

    @Test
    void anOperationThatEndsDropsAnIdleClaimAtOnce() {
        OpState op = postAndOpen();
        PayloadSink sink = engine.claim(1, header(0, 0), 16);
        assertThat(sink.begin()).isTrue();
        sink.accept(ints(10, 20), 0);
        sink.pause();

        engine.end(op); // the rest never came: ending does not wait for it
        assertThat(sink.begin()).as("the destination is no longer the claim's").isFalse();
        sink.complete();
        assertThat(out.getAtIndex(I32, 2)).as("nothing written after the end").isZero();
    }

    @Test
    void anOperationThatEndsWaitsForThePieceBeingWrittenOnly() throws Exception {
        OpState op = postAndOpen();
        PayloadSink sink = engine.claim(1, header(0, 0), 16);
        assertThat(sink.begin()).isTrue();
        var ended = CompletableFuture.runAsync(() -> engine.end(op));
        // end() cannot return while the piece is written; it returns once the piece ends
        assertThat(ended).isNotDone();
        sink.accept(ints(10, 20), 0);
        assertThat(ended).isNotDone();
        sink.pause();
        ended.get(5, TimeUnit.SECONDS);
        assertThat(sink.begin()).isFalse();
        sink.complete();
        assertThat(out.asSlice(0, 8).toArray(I32)).containsExactly(11, 22);
    }

    @Test
    void aLaneThatFailsMidPayloadReleasesItsClaim() {
        OpState op = postAndOpen();
        PayloadSink sink = engine.claim(1, header(0, 0), 16);
        assertThat(sink.begin()).isTrue();
        sink.accept(ints(10, 20), 0);
        sink.pause();
        sink.abandon();
        assertThat(op.getAsBoolean()).as("the round is not complete").isFalse();
        engine.end(op); // returns: no writer left
    }

    /** Posts and opens rank 0's broadcast of 32 bytes from rank 1 into {@code target}: one plain receive. */
    private OpState broadcastInto(MemorySegment target) {
        var spec = new OpSpec(Operation.BROADCAST, DataType.U8, null, 32, 1, null, null, false);
        Schedule schedule = new BinomialBroadcast().plan(0, 2, spec);
        var bfp = new Fingerprint(Operation.BROADCAST, DataType.U8, null, 1, 32);
        OpState op = engine.post(WORLD, bfp, schedule, DataType.U8, null,
                new MemorySegment[] {target, target, MemorySegment.NULL});
        engine.open(op, 0, schedule.rounds().get(0));
        return op;
    }

    private PayloadSink claimBroadcast(OpState op) {
        var bfp = op.fingerprint;
        return engine.claim(1, new Message.Collective(0, op.seq, 0, bfp.operationCode(), bfp.typeCode(),
                bfp.opCode(), 1, 32, 32, 0, MemorySegment.NULL), 32);
    }

    @Test
    void aPoliteLeaveDoesNotFailAReceiveWhoseLastBytesAreBeingWritten() {
        OpState op = broadcastInto(java.lang.foreign.Arena.ofAuto().allocate(32));
        PayloadSink sink = claimBroadcast(op);
        assertThat(sink.begin()).isTrue();

        // every byte rank 1 sent arrived before it left: the reader is still copying them in
        engine.onPeerDown(1, "left (it closed its communicator)", null);
        assertThat(engine.failure(op)).isNull();
        sink.direct().fill((byte) 7);
        sink.pause();
        sink.complete();

        assertThat(op.getAsBoolean()).isTrue();
        assertThat(engine.failure(op)).isNull();
        engine.end(op);
    }

    @Test
    void aClaimAbandonedMidPayloadLeavesItsReceiveWaitingForTheSender() {
        OpState op = broadcastInto(java.lang.foreign.Arena.ofAuto().allocate(32));
        PayloadSink sink = claimBroadcast(op);
        assertThat(sink.begin()).isTrue();
        sink.pause();
        sink.abandon(); // the lane ended mid-payload: those bytes will not come

        engine.onPeerDown(1, "left (it closed its communicator)", null);

        assertThat(engine.failure(op)).hasMessageContaining("cannot complete: rank 1 left");
        engine.end(op);
    }

    @Test
    void aPlainReceiveIsWrittenStraightIntoItsTarget() {
        var spec = new OpSpec(Operation.BROADCAST, DataType.U8, null, 32, 1, null, null, false);
        Schedule schedule = new BinomialBroadcast().plan(0, 2, spec);
        var bfp = new Fingerprint(Operation.BROADCAST, DataType.U8, null, 1, 32);
        MemorySegment target = java.lang.foreign.Arena.ofAuto().allocate(32);
        OpState op = engine.post(WORLD, bfp, schedule, DataType.U8, null,
                new MemorySegment[] {target, target, MemorySegment.NULL});
        engine.open(op, 0, schedule.rounds().get(0));
        PayloadSink sink = engine.claim(1, new Message.Collective(0, 0, 0, bfp.operationCode(), bfp.typeCode(),
                bfp.opCode(), 1, 32, 32, 0, MemorySegment.NULL), 32);
        assertThat(sink.direct()).isNotNull();
        assertThat(sink.direct().address()).isEqualTo(target.address());
        assertThat(sink.begin()).isTrue();
        sink.direct().fill((byte) 7);
        sink.pause();
        sink.complete();
        assertThat(op.getAsBoolean()).isTrue();
        engine.end(op);
    }
}
