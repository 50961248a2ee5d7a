package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.ReduceOp;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The plans of repeated calls: a loop of up to {@link CallRunner#RECENT_PLANS} distinct calls reuses each call's plan
 * (no spec, fingerprint or schedule built again), and the spec a plan is cached under compares as a record does.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CallRunnerPlansTest {

    @Test
    void shouldReuseThePlansOfALoopOfFourDistinctCalls() {
        var runner = new CallRunner(null, null, NexarConfig.defaults(), Group.world(0, 4));
        var first = new CallRunner.Planned[4];
        for (int loop = 0; loop < 3; loop++) {
            var plans = new CallRunner.Planned[] {
                runner.planned(Operation.ALL_REDUCE, DataType.F32, ReduceOp.SUM, 1024, -1, false),
                runner.planned(Operation.ALL_REDUCE, DataType.F64, ReduceOp.SUM, 1, -1, false),
                runner.planned(Operation.BARRIER, DataType.U8, null, 0, -1, false),
                runner.planned(Operation.BROADCAST, DataType.F32, null, 1024, 0, false)};
            for (int i = 0; i < plans.length; i++) {
                if (loop == 0) {
                    first[i] = plans[i];
                } else {
                    assertThat(plans[i]).as("call %d of loop %d", i, loop).isSameAs(first[i]);
                }
            }
        }
        // a fifth distinct call takes a slot; the call it replaced is planned anew, from the schedule cache
        var fifth = runner.planned(Operation.ALL_REDUCE, DataType.I32, ReduceOp.MAX, 7, -1, false);
        assertThat(fifth.spec().count()).isEqualTo(7);
        var again = runner.planned(Operation.ALL_REDUCE, DataType.F32, ReduceOp.SUM, 1024, -1, false);
        assertThat(again).isNotSameAs(first[0]);
        assertThat(again.schedule()).isSameAs(first[0].schedule());
    }

    @Test
    void shouldCompareSpecsAndSlicesAsRecordsDo() {
        long[] counts = {1, 2};
        var a = new OpSpec(Operation.ALL_GATHER, DataType.F32, null, -1, -1, counts, null, false);
        var b = new OpSpec(Operation.ALL_GATHER, DataType.F32, null, -1, -1, counts, null, false);
        var sameCountsOtherArray = new OpSpec(Operation.ALL_GATHER, DataType.F32, null, -1, -1, counts.clone(), null,
                false);
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).isNotEqualTo(sameCountsOtherArray);
        var plain = new OpSpec(Operation.ALL_REDUCE, DataType.F32, ReduceOp.SUM, 8, -1, null, null, true);
        assertThat(plain).isEqualTo(new OpSpec(Operation.ALL_REDUCE, DataType.F32, ReduceOp.SUM, 8, -1, null, null,
                true)).isNotEqualTo(new OpSpec(Operation.ALL_REDUCE, DataType.F32, ReduceOp.SUM, 8, -1, null, null,
                false)).isNotEqualTo(new OpSpec(Operation.ALL_REDUCE, DataType.F32, ReduceOp.MAX, 8, -1, null, null,
                true));
        assertThat(new Slice(Buf.OUTPUT, 4, 8)).isEqualTo(new Slice(Buf.OUTPUT, 4, 8))
                .hasSameHashCodeAs(new Slice(Buf.OUTPUT, 4, 8)).isNotEqualTo(new Slice(Buf.INPUT, 4, 8))
                .isNotEqualTo(new Slice(Buf.OUTPUT, 4, 9)).isNotEqualTo(new Slice(Buf.OUTPUT, 5, 8));
        assertThat(new EarlyStore.OpKey(3, 9)).isEqualTo(new EarlyStore.OpKey(3, 9))
                .hasSameHashCodeAs(new EarlyStore.OpKey(3, 9)).isNotEqualTo(new EarlyStore.OpKey(3, 10))
                .isNotEqualTo(new EarlyStore.OpKey(4, 9));
    }
}
