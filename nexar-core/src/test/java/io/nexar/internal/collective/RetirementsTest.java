package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.internal.protocol.AbortReason;
import io.nexar.internal.protocol.Message;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Retiring a communicator ({@link Retirements}): an automatic recovery that rebuilt the world fails only the old
 * world's operations that still need a rank that failed or left, refuses new ones, and a member's notice that it
 * retired the communicator fails the operations it will never post, now or when they are posted.
 *
 * <p>The operations: this process is rank 0 of a world of three and receives a broadcast of 8 bytes from a root,
 * rank 1 or rank 2 (one round, one receive from the root).
 */
@Timeout(10)
class RetirementsTest {
    private static final Group WORLD = Group.world(0, 3);
    private static final int BYTES = 8;

    private final CollectiveEngine engine = new CollectiveEngine(1 << 20);

    /** Posts and opens rank 0's broadcast from {@code root}. */
    private OpState broadcastFrom(int root) {
        MemorySegment out = MemorySegment.ofArray(new byte[BYTES]);
        var spec = new OpSpec(Operation.BROADCAST, DataType.U8, null, BYTES, root, null, null, false);
        Schedule schedule = new BinomialBroadcast().plan(0, 3, spec);
        OpState op = engine.post(WORLD, new Fingerprint(Operation.BROADCAST, DataType.U8, null, root, BYTES),
                schedule, DataType.U8, null, new MemorySegment[] {out, out, MemorySegment.NULL});
        if (op.failure == null) {
            engine.open(op, 0, schedule.rounds().get(0));
        }
        return op;
    }

    private static Message.CollectiveAbort notice(long from) {
        return new Message.CollectiveAbort(WORLD.id(), from, AbortReason.RETIRED, 0, -1,
                "it posts no operation of this communicator from #" + from + " on (the world was rebuilt)");
    }

    @Test
    void retiringFailsTheOperationsThatStillNeedAFailedRankAndTellsTheOthers() {
        OpState needsTheLeaver = broadcastFrom(1);
        OpState needsASurvivor = broadcastFrom(2);

        engine.retire(WORLD, new int[] {1}, "the world communicator was rebuilt without world ranks [1] (recovery 1)");

        assertThat(engine.failure(needsTheLeaver)).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("cannot complete: the world communicator was rebuilt without world ranks [1]");
        assertThat(needsTheLeaver.informed).as("the others are told: they may have spared theirs").isFalse();
        assertThat(engine.failure(needsASurvivor)).as("rank 2 posted it or will say it never will").isNull();
    }

    @Test
    void aRetiredCommunicatorRefusesNewOperations() {
        engine.retire(WORLD, new int[] {1}, "the world communicator was rebuilt without world ranks [1] (recovery 1)");

        OpState later = broadcastFrom(2);

        assertThat(engine.failure(later)).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("cannot run: the world communicator was rebuilt without world ranks [1]");
    }

    @Test
    void anOperationSparedByTheRetirementStillCompletes() throws Exception {
        OpState op = broadcastFrom(2);
        engine.retire(WORLD, new int[] {1}, "rebuilt");
        MemorySegment payload = MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        var fp = op.fingerprint;
        engine.onMessage(2, new Message.Collective(WORLD.id(), op.seq, 0, fp.operationCode(), fp.typeCode(),
                fp.opCode(), 2, BYTES, BYTES, 0, payload));

        assertThat(engine.awaitRound(op, System.nanoTime())).isTrue();
        assertThat(engine.failure(op)).isNull();
    }

    @Test
    void chunksOfOperationsARetiredCommunicatorWillNeverPostAreDropped() {
        var fp = new Fingerprint(Operation.BROADCAST, DataType.U8, null, 2, BYTES);
        var early = new Message.Collective(WORLD.id(), 0, 0, fp.operationCode(), fp.typeCode(), fp.opCode(), 2,
                BYTES, BYTES, 0, MemorySegment.ofArray(new byte[BYTES]));
        engine.onMessage(2, early); // kept for operation 0, not posted here yet
        assertThat(engine.storedBytes()).isEqualTo(BYTES);

        engine.retire(WORLD, new int[] {1}, "rebuilt");
        assertThat(engine.storedBytes()).as("freed: it will never be taken").isZero();
        var later = new Message.Collective(WORLD.id(), 1, 0, fp.operationCode(), fp.typeCode(), fp.opCode(), 2,
                BYTES, BYTES, 0, MemorySegment.ofArray(new byte[BYTES]));
        assertThat(engine.onMessage(2, later)).isEqualTo(io.nexar.internal.transport.InboundHandler.Delivery.ACCEPTED);
        assertThat(engine.storedBytes()).as("dropped, not kept").isZero();
    }

    @Test
    void aMembersNoticeFailsTheOperationsItWillNotPostAndSparesTheEarlierOnes() {
        OpState posted = broadcastFrom(1);
        OpState notPostedThere = broadcastFrom(1);

        engine.onMessage(2, notice(notPostedThere.seq));

        assertThat(engine.failure(posted)).as("rank 2 posted it: it ends it itself").isNull();
        assertThat(engine.failure(notPostedThere)).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("cannot complete: rank 2 will not take part: it posts no operation of this"
                        + " communicator from #1 on");
        assertThat(engine.failure(notPostedThere).peer()).hasValue(2);
        assertThat(engine.failure(broadcastFrom(1))).as("posted after the notice").isInstanceOf(
                PeerFailedException.class).hasMessageContaining("rank 2 will not take part");
    }

    @Test
    void aNoticeThatArrivesBeforeAnyOperationOfItsCommunicatorFailsTheFirstOneItNames() {
        engine.onMessage(2, notice(1)); // no operation of the world was posted here yet

        assertThat(engine.failure(broadcastFrom(1))).as("operation 0 was posted there").isNull();
        assertThat(engine.failure(broadcastFrom(1))).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("rank 2 will not take part");
        assertThat(engine.failure(broadcastFrom(1))).as("and every later one").isInstanceOf(
                PeerFailedException.class);
    }
}
