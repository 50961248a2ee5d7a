package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.CollectiveMismatchException;
import io.nexar.CommunicatorClosedException;
import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.internal.protocol.AbortReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The collective engine on its own, driven through its package-level API: operations are numbered per communicator
 * in post order, a chunk goes to the operation its (communicator, sequence number) names whenever it arrives, and
 * failures (abort, peer down, close) reach exactly the operations they concern.
 *
 * <p>The operation used throughout: this process is rank 0 of a two-member group and receives a broadcast of
 * {@value #BYTES} bytes from rank 1 (one round, one receive).
 */
@Timeout(10)
class CollectiveEngineTest {
    private static final int BYTES = 32;
    private static final Group WORLD = Group.world(0, 2);
    /** Communicator 3 of world ranks 0 and 2 (world rank 1 is not a member). */
    private static final Group SUB = new Group(3, 0, new int[] {0, 2});

    private final CollectiveEngine engine = new CollectiveEngine(1 << 20);

    private static Fingerprint fingerprint(long count) {
        return new Fingerprint(Operation.BROADCAST, DataType.U8, null, 1, count);
    }

    /** Posts rank 0's broadcast from rank 1 of {@code count} bytes on {@code group}; its output is all zero. */
    private OpState post(Group group, int count) {
        MemorySegment out = MemorySegment.ofArray(new byte[count]);
        var spec = new OpSpec(Operation.BROADCAST, DataType.U8, null, count, 1, null, null, false);
        Schedule schedule = new BinomialBroadcast().plan(0, 2, spec);
        return engine.post(group, fingerprint(count), schedule, DataType.U8, null,
                new MemorySegment[] {out, out, MemorySegment.NULL});
    }

    private OpState post(Group group) {
        return post(group, BYTES);
    }

    private void open(OpState op) {
        engine.open(op, 0, op.schedule.rounds().get(0));
    }

    /** Root 1's whole broadcast for operation {@code seq} of communicator {@code comm}, every byte {@code value}. */
    private static Message.Collective chunk(int comm, long seq, int value) {
        MemorySegment payload = MemorySegment.ofArray(new byte[BYTES]);
        payload.fill((byte) value);
        Fingerprint fp = fingerprint(BYTES);
        return new Message.Collective(comm, seq, 0, fp.operationCode(), fp.typeCode(), fp.opCode(), 1, BYTES, BYTES,
                0, payload);
    }

    private static byte[] output(OpState op) {
        return op.buffers[Buf.OUTPUT.ordinal()].toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] filled(int value) {
        byte[] b = new byte[BYTES];
        java.util.Arrays.fill(b, (byte) value);
        return b;
    }

    private boolean roundDone(OpState op) throws InterruptedException {
        return engine.awaitRound(op, System.nanoTime()) && engine.failure(op) == null;
    }

    // ---------------------------------------------------------------------------------------------- ordering

    @Test
    void numbersOperationsInPostOrderPerCommunicator() {
        assertThat(post(WORLD).seq).isZero();
        assertThat(post(SUB).seq).as("each communicator counts on its own").isZero();
        assertThat(post(WORLD).seq).isEqualTo(1);
        assertThat(post(WORLD).seq).isEqualTo(2);
        assertThat(post(SUB).seq).isEqualTo(1);
    }

    @Test
    void aChunkGoesToTheOperationItsSequenceNumberNamesWhateverTheArrivalOrder() throws Exception {
        OpState first = post(WORLD);
        OpState second = post(WORLD);
        open(first);
        open(second);
        assertThat(engine.onMessage(1, chunk(0, 1, 9))).isEqualTo(Delivery.ACCEPTED); // the second, first
        assertThat(roundDone(first)).as("operation 0 still waits for its own chunk").isFalse();
        assertThat(engine.onMessage(1, chunk(0, 0, 7))).isEqualTo(Delivery.ACCEPTED);

        assertThat(roundDone(first)).isTrue();
        assertThat(roundDone(second)).isTrue();
        assertThat(output(first)).isEqualTo(filled(7));
        assertThat(output(second)).isEqualTo(filled(9));
    }

    @Test
    void aChunkOfAnotherCommunicatorWithTheSameSequenceNumberDoesNotMix() throws Exception {
        OpState world = post(WORLD);
        OpState sub = post(SUB);
        open(world);
        open(sub);
        engine.onMessage(2, chunk(SUB.id(), 0, 5)); // world rank 2 is rank 1 of SUB
        assertThat(roundDone(sub)).isTrue();
        assertThat(roundDone(world)).isFalse();
        assertThat(output(world)).isEqualTo(filled(0));
        assertThat(output(sub)).isEqualTo(filled(5));
    }

    @Test
    void aCommunicatorWhoseLockIsHeldDelaysNoOtherCommunicator() throws Exception {
        OpState world = post(WORLD);
        OpState sub = post(SUB);
        open(world);
        open(sub);
        try (var busy = io.nexar.internal.util.HeldLock.holding(sub.lock)) { // SUB's deliverer or driver, busy
            assertThat(sub.lock).as("the shards have a lock each").isNotSameAs(world.lock);
            var delivered = CompletableFuture.supplyAsync(() -> engine.onMessage(1, chunk(0, 0, 7)));
            assertThat(delivered.get(5, TimeUnit.SECONDS)).isEqualTo(Delivery.ACCEPTED);
            assertThat(roundDone(world)).isTrue();
            assertThat(output(world)).isEqualTo(filled(7));
        }
        engine.onMessage(2, chunk(SUB.id(), 0, 5));
        assertThat(roundDone(sub)).isTrue();
    }

    @Test
    void aChunkOfACommunicatorWithNoOperationHereYetIsKeptForItsFirstPost() throws Exception {
        assertThat(engine.onMessage(2, chunk(SUB.id(), 0, 4))).isEqualTo(Delivery.ACCEPTED);
        assertThat(engine.storedBytes()).isEqualTo(BYTES);
        OpState sub = post(SUB);
        open(sub);
        assertThat(roundDone(sub)).isTrue();
        assertThat(output(sub)).isEqualTo(filled(4));
        engine.end(sub);
        assertThat(engine.storedBytes()).isZero();
    }

    // ---------------------------------------------------------------------------------------------- early messages

    @Test
    void aChunkOfAnOperationNotPostedYetWaitsInTheStoreUntilItsRoundOpens() throws Exception {
        assertThat(engine.onMessage(1, chunk(0, 0, 7))).isEqualTo(Delivery.ACCEPTED);
        assertThat(engine.storedBytes()).isEqualTo(BYTES);

        OpState op = post(WORLD);
        assertThat(engine.failure(op)).isNull();
        assertThat(engine.storedBytes()).as("counted until it is applied").isEqualTo(BYTES);
        open(op);
        assertThat(engine.storedBytes()).isZero();
        assertThat(roundDone(op)).isTrue();
        assertThat(output(op)).isEqualTo(filled(7));
    }

    @Test
    void chunksOfSeveralOperationsNotPostedYetEachWaitForTheirOwn() throws Exception {
        engine.onMessage(1, chunk(0, 2, 3));
        engine.onMessage(1, chunk(0, 0, 1));
        engine.onMessage(1, chunk(0, 1, 2));
        for (int seq = 0; seq < 3; seq++) {
            OpState op = post(WORLD);
            open(op);
            assertThat(roundDone(op)).isTrue();
            assertThat(output(op)).as("operation %d", seq).isEqualTo(filled(seq + 1));
            engine.end(op);
        }
        assertThat(engine.storedBytes()).isZero();
    }

    @Test
    void anEarlyChunkThatDoesNotMatchFailsItsOperationAtPostAndBreaksTheCommunicator() {
        engine.onMessage(1, chunk(0, 0, 7)); // rank 1 broadcasts 32 bytes
        OpState op = post(WORLD, 64); // this rank expects 64

        assertThat(engine.failure(op)).isInstanceOf(CollectiveMismatchException.class)
                .hasMessageContaining("count is 64 here but 32 on rank 1");
        assertThat(((CollectiveMismatchException) engine.failure(op)).field())
                .isEqualTo(CollectiveMismatchException.Field.COUNT);
        engine.end(op);
        assertThat(engine.failure(post(WORLD))).as("the next operation cannot pair up either")
                .isInstanceOf(CollectiveMismatchException.class).hasMessageContaining("broken since seq 0");
        assertThat(engine.failure(post(SUB))).as("another communicator is untouched").isNull();
    }

    @Test
    void anAbortOfAnOperationNotPostedYetFailsItAtPostNamingItsSender() {
        engine.onMessage(1, new Message.CollectiveAbort(0, 0, AbortReason.FAILED, 0, -1, "rank 1 timed out"));
        OpState op = post(WORLD);
        assertThat(engine.failure(op)).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("cannot complete: rank 1 failed it (rank 1 timed out)");
        assertThat(engine.failure(op).peer()).hasValue(1);
        assertThat(engine.failure(post(WORLD))).as("the abort concerned operation 0 only").isNull();
    }

    @Test
    void aChunkOfAnOperationThatEndedIsDroppedNotStored() {
        OpState op = post(WORLD);
        engine.fail(op, new PeerFailedException(op.context().withPeer(1), "cannot complete: test"));
        engine.end(op);
        assertThat(engine.onMessage(1, chunk(0, 0, 7))).isEqualTo(Delivery.ACCEPTED);
        assertThat(engine.storedBytes()).isZero();
    }

    @Test
    void endingAnOperationReleasesTheChunksItHeldForLaterRounds() {
        engine.onMessage(1, chunk(0, 0, 7));
        OpState op = post(WORLD); // moved in, not applied: its round never opens
        engine.fail(op, new PeerFailedException(op.context(), "cannot complete: test"));
        engine.end(op);
        assertThat(engine.storedBytes()).isZero();
    }

    // ---------------------------------------------------------------------------------------------- failures

    @Test
    void aPeerGoingDownFailsTheOperationsOfItsCommunicatorsOnly() {
        OpState world = post(WORLD);
        OpState sub = post(SUB);
        engine.onPeerDown(1, "failed (connection reset)", null);

        assertThat(engine.failure(world)).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("cannot complete: rank 1 failed (connection reset)");
        assertThat(engine.failure(world).peer()).hasValue(1);
        assertThat(engine.failure(sub)).as("world rank 1 is not a member of communicator 3").isNull();
        assertThat(engine.failure(post(WORLD))).as("a later operation fails at post")
                .isInstanceOf(PeerFailedException.class).hasMessageContaining("rank 1 failed (connection reset)");
    }

    @Test
    void aPoliteLeaveFailsOnlyTheOperationsThatStillNeedTheLeaver() {
        OpState received = post(WORLD);
        open(received);
        engine.onMessage(1, chunk(0, 0, 7)); // everything rank 1 had to send arrived before it left
        OpState waiting = post(WORLD);
        engine.onPeerDown(1, "left (it closed its communicator)", null);

        assertThat(engine.failure(received)).isNull();
        assertThat(engine.failure(waiting)).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("rank 1 left (it closed its communicator)");
    }

    @Test
    void aDriverWaitingForItsRoundWakesWhenItsPeerGoesDown() throws Exception {
        OpState op = post(WORLD);
        open(op);
        long farAway = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        var woke = CompletableFuture.supplyAsync(() -> {
            try {
                return engine.awaitRound(op, farAway);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, r -> Thread.ofVirtual().start(r));
        engine.onPeerDown(1, "failed (killed)", null);
        assertThat(woke.get(5, TimeUnit.SECONDS)).as("returned before its deadline").isTrue();
        assertThat(engine.failure(op)).hasMessageContaining("rank 1 failed (killed)");
    }

    @Test
    void abortAllFailsEveryOperationAndTheOnesPostedAfter() {
        OpState world = post(WORLD);
        OpState sub = post(SUB);
        engine.abortAll(2, "world rank 2 failed (heartbeats stopped)");

        assertThat(engine.failure(world)).hasMessageContaining("cannot complete: world rank 2 failed");
        assertThat(engine.failure(world).peer()).as("world rank 2 is not in the world group of 2").isEmpty();
        assertThat(engine.failure(sub).peer()).as("world rank 2 is rank 1 of communicator 3").hasValue(1);
        assertThat(engine.failure(post(SUB))).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("cannot complete: world rank 2 failed");
    }

    @Test
    void closingACommunicatorFailsItsOperationsAndDropsItsEarlyChunksOnly() {
        OpState world = post(WORLD);
        OpState sub = post(SUB);
        engine.onMessage(2, chunk(SUB.id(), 5, 1));
        engine.onMessage(1, chunk(0, 5, 1));
        assertThat(engine.storedBytes()).isEqualTo(2 * BYTES);

        engine.closeCommunicator(SUB.id(), "it was freed");
        assertThat(engine.failure(sub)).isInstanceOf(CommunicatorClosedException.class)
                .hasMessageContaining("failed: it was freed");
        assertThat(engine.failure(world)).isNull();
        assertThat(engine.storedBytes()).isEqualTo(BYTES);
        assertThat(engine.onMessage(2, chunk(SUB.id(), 6, 1))).as("dropped").isEqualTo(Delivery.ACCEPTED);
        assertThat(engine.storedBytes()).isEqualTo(BYTES);
        assertThat(engine.failure(post(SUB))).isInstanceOf(CommunicatorClosedException.class);
    }

    @Test
    void closingTheEngineFailsEverythingAndDropsWhatArrivesAfter() {
        OpState world = post(WORLD);
        engine.onMessage(1, chunk(0, 3, 1));
        engine.close("the process is shutting down");

        assertThat(engine.failure(world)).isInstanceOf(CommunicatorClosedException.class)
                .hasMessageContaining("failed: the process is shutting down");
        assertThat(engine.storedBytes()).isZero();
        assertThat(engine.onMessage(1, chunk(0, 4, 1))).isEqualTo(Delivery.ACCEPTED);
        assertThat(engine.storedBytes()).isZero();
        assertThat(engine.failure(post(SUB))).isInstanceOf(CommunicatorClosedException.class);
    }
}
