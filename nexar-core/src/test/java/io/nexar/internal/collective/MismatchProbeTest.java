package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.CollectiveMismatchException;
import io.nexar.CollectiveMismatchException.Field;
import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.internal.protocol.Message;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** When a stalled round sends its fingerprint probes, and what a receiver does with one. */
@Timeout(10)
class MismatchProbeTest {

    @Test
    void shouldProbeAfterOneSecondOrAnEighthOfAShortBudget() {
        assertThat(MismatchProbe.afterNanos(TimeUnit.SECONDS.toNanos(30))).isEqualTo(TimeUnit.SECONDS.toNanos(1));
        assertThat(MismatchProbe.afterNanos(TimeUnit.SECONDS.toNanos(4))).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
        assertThat(MismatchProbe.afterNanos(4)).isEqualTo(1);
    }

    @Test
    void shouldProbeAfterTheSettingOrNeverWhenItIsZero() {
        long second = TimeUnit.SECONDS.toNanos(1);
        assertThat(MismatchProbe.afterNanos(TimeUnit.MILLISECONDS.toNanos(200), 30 * second))
                .isEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(MismatchProbe.afterNanos(5 * second, 8 * second)).isEqualTo(second);
        assertThat(MismatchProbe.afterNanos(0, 30 * second)).isZero();
        assertThat(MismatchProbe.afterNanos(0, Long.MIN_VALUE)).isZero();
        assertThat(MismatchProbe.afterNanos(3 * second, Long.MIN_VALUE)).isEqualTo(3 * second);
    }

    @Test
    void shouldTreatAnOverflowedBudgetAsLarge() {
        long farDeadline = Long.MAX_VALUE;
        long posted = -5; // System.nanoTime may be negative
        assertThat(MismatchProbe.afterNanos(farDeadline - posted)).isEqualTo(MismatchProbe.AFTER_NANOS);
    }

    private static final Fingerprint BARRIER = new Fingerprint(Operation.BARRIER, DataType.U8, null, -1, 0);

    private static OpState postBarrier(CollectiveEngine engine) {
        var spec = new OpSpec(Operation.BARRIER, DataType.U8, null, 0, -1, null, null, false);
        Schedule schedule = new DisseminationBarrier().plan(0, 3, spec);
        return engine.post(Group.world(0, 3), BARRIER, schedule, DataType.U8, null,
                new MemorySegment[] {MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL});
    }

    private static Message.Collective probe(long seq, int root) {
        return new Message.Collective(0, seq, MismatchProbe.STEP, BARRIER.operationCode(), BARRIER.typeCode(),
                BARRIER.opCode(), root, BARRIER.count(), 0, 0, MemorySegment.ofArray(new byte[0]));
    }

    @Test
    void shouldDropAProbeThatMatchesAndFailOnOneThatDoesNot() {
        var engine = new CollectiveEngine(1 << 20);
        OpState op = postBarrier(engine);
        engine.onMessage(2, probe(op.seq, -1));
        assertThat(engine.failure(op)).isNull();
        assertThat(op.later).isEmpty();
        engine.onMessage(2, probe(op.seq, 1));
        assertThat(engine.failure(op)).isInstanceOf(CollectiveMismatchException.class)
                .hasMessageContaining("does not match rank 2: root is -1 here but 1 on rank 2")
                .satisfies(e -> assertThat(((CollectiveMismatchException) e).field()).isEqualTo(Field.ROOT));
    }

    @Test
    void shouldCompareAProbeThatArrivedBeforeItsOperationAndKeepNothing() {
        var engine = new CollectiveEngine(1 << 20);
        engine.onMessage(1, probe(0, -1)); // rank 1 stalled in barrier #0 before this rank posted it
        OpState op = postBarrier(engine);
        assertThat(engine.failure(op)).isNull();
        assertThat(op.later).as("a probe is no chunk of a later round").isEmpty();
        assertThat(engine.storedBytes()).isZero();

        engine.onMessage(1, probe(1, 2)); // a probe of the next call, with another root
        OpState next = postBarrier(engine);
        assertThat(engine.failure(next)).isInstanceOf(CollectiveMismatchException.class);
    }
}
