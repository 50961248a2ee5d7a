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
 * Issue 14 item 7, the cause and not the cascade: rank 0 of 3 learns of rank 2's death from rank 1's abort before it
 * notices the death itself. Its error must name rank 2, the rank that failed, not rank 1, which only told it.
 */
@Timeout(10)
class AbortCulpritTest {

    private static OpState postBarrier(CollectiveEngine engine) {
        var group = Group.world(0, 3);
        var spec = new OpSpec(Operation.BARRIER, DataType.U8, null, 0, -1, null, null, false);
        Schedule schedule = new DisseminationBarrier().plan(0, 3, spec);
        var fp = new Fingerprint(Operation.BARRIER, DataType.U8, null, -1, 0);
        return engine.post(group, fp, schedule, DataType.U8, null, new MemorySegment[] {MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL});
    }

    @Test
    void anAbortThatNamesTheFailedRankIsBlamedOnThatRank() {
        var engine = new CollectiveEngine(1 << 20);
        OpState op = postBarrier(engine);
        engine.onMessage(1, new Message.CollectiveAbort(0, op.seq, AbortReason.FAILED, 0, 2,
                "barrier on rank 1 (world 3, comm 0, seq 0) cannot complete: rank 2 ended its bulk lane"));
        var failure = engine.failure(op);
        assertThat(failure).isInstanceOf(PeerFailedException.class);
        assertThat(failure.peer()).hasValue(2);
        assertThat(failure.getMessage()).contains("cannot complete: rank 2 failed (reported by rank 1: ");
    }

    @Test
    void anAbortWithoutACulpritIsBlamedOnItsSender() {
        var engine = new CollectiveEngine(1 << 20);
        OpState op = postBarrier(engine);
        engine.onMessage(1, new Message.CollectiveAbort(0, op.seq, AbortReason.FAILED, 0, -1,
                "barrier on rank 1 timed out"));
        var failure = engine.failure(op);
        assertThat(failure.peer()).hasValue(1);
        assertThat(failure.getMessage()).contains("cannot complete: rank 1 failed it (barrier on rank 1 timed out)");
    }
}
