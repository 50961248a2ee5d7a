package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.ConfigKey;
import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.ReduceOp;
import io.nexar.internal.collective.AlgorithmSelector.Algo;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The selection rule of docs/collectives.md, one row per case (F32 elements: 4 bytes). */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class AlgorithmSelectorTest {

    @ParameterizedTest(name = "{0} count {1} size {2} det {3} forced {4} -> {5}")
    @CsvSource(delimiter = '|', textBlock = """
            # operation    | F32 count | size | deterministic | forced                     | expected
            ALL_REDUCE     | 1024      | 4    | false         | auto                       | RECURSIVE_DOUBLING_ALLREDUCE
            ALL_REDUCE     | 1025      | 4    | false         | auto                       | HALVING_DOUBLING_ALLREDUCE
            ALL_REDUCE     | 16384     | 4    | false         | auto                       | HALVING_DOUBLING_ALLREDUCE
            ALL_REDUCE     | 16385     | 4    | false         | auto                       | RING_ALLREDUCE
            ALL_REDUCE     | 2097151   | 4    | false         | auto                       | RING_ALLREDUCE
            ALL_REDUCE     | 2097152   | 4    | false         | auto                       | RING_ALLREDUCE
            ALL_REDUCE     | 0         | 1    | false         | auto                       | RECURSIVE_DOUBLING_ALLREDUCE
            ALL_REDUCE     | 2         | 4    | false         | allreduce=halving-doubling | HALVING_DOUBLING_ALLREDUCE
            ALL_REDUCE     | 16384     | 4    | true          | auto                       | RANK_ORDER_ALLREDUCE
            ALL_REDUCE     | 2097152   | 4    | true          | allreduce=ring             | RANK_ORDER_ALLREDUCE
            ALL_REDUCE     | 10        | 4    | false         | allreduce=ring             | RING_ALLREDUCE
            ALL_REDUCE     | 10        | 4    | false         | allreduce=pipelined-ring   | PIPELINED_RING_ALLREDUCE
            ALL_REDUCE     | 9000000   | 4    | false         | allreduce=halving-doubling | HALVING_DOUBLING_ALLREDUCE
            ALL_REDUCE     | 10        | 4    | false         | allreduce=rank-order       | RANK_ORDER_ALLREDUCE
            BROADCAST      | 131071    | 3    | false         | auto                       | BINOMIAL_BROADCAST
            BROADCAST      | 131072    | 3    | false         | auto                       | PIPELINED_CHAIN_BROADCAST
            BROADCAST      | 131072    | 2    | false         | auto                       | BINOMIAL_BROADCAST
            BROADCAST      | 1         | 3    | false         | broadcast=scatter-allgather | SCATTER_ALLGATHER_BROADCAST
            BROADCAST      | 9000000   | 8    | false         | broadcast=binomial         | BINOMIAL_BROADCAST
            BROADCAST      | 1         | 2    | false         | broadcast=pipelined-chain  | PIPELINED_CHAIN_BROADCAST
            BROADCAST      | 9000000   | 8    | false         | broadcast=pipelined-chain  | PIPELINED_CHAIN_BROADCAST
            BROADCAST      | 9000000   | 8    | true          | auto                       | PIPELINED_CHAIN_BROADCAST
            ALL_GATHER     | 4096      | 4    | false         | auto                       | RECURSIVE_DOUBLING_ALLGATHER
            ALL_GATHER     | 4097      | 4    | false         | auto                       | RING_ALLGATHER
            ALL_GATHER     | 16384     | 1    | false         | auto                       | RECURSIVE_DOUBLING_ALLGATHER
            ALL_GATHER     | 1         | 4    | false         | allgather=ring             | RING_ALLGATHER
            ALL_GATHER     | 100000    | 4    | false         | allgather=recursive-doubling | RECURSIVE_DOUBLING_ALLGATHER
            REDUCE_SCATTER | 10        | 4    | false         | auto                       | RING_REDUCE_SCATTER
            REDUCE_SCATTER | 10        | 4    | true          | auto                       | RANK_ORDER_REDUCE_SCATTER
            REDUCE         | 10        | 4    | false         | auto                       | BINOMIAL_REDUCE
            REDUCE         | 10        | 4    | true          | auto                       | RANK_ORDER_REDUCE
            SCAN           | 10        | 4    | false         | auto                       | RECURSIVE_DOUBLING_SCAN
            SCAN           | 10        | 4    | true          | auto                       | LINEAR_SCAN
            EXCLUSIVE_SCAN | 10        | 4    | false         | auto                       | RECURSIVE_DOUBLING_SCAN
            EXCLUSIVE_SCAN | 10        | 4    | true          | auto                       | LINEAR_SCAN
            GATHER         | 10        | 4    | true          | auto                       | FLAT_GATHER
            SCATTER        | 10        | 4    | false         | auto                       | FLAT_SCATTER
            ALL_TO_ALL     | 10        | 4    | false         | auto                       | PAIRWISE_ALL_TO_ALL
            BARRIER        | 0         | 4    | true          | auto                       | DISSEMINATION_BARRIER
            """)
    void selectsByForcedAlgorithmThenDeterminismThenSize(Operation operation, long count, int size,
                                                          boolean deterministic, String forced, Algo expected) {
        var builder = NexarConfig.builder().ignoreEnvironment().collectiveDeterministic(deterministic);
        if (!forced.equals("auto")) {
            String[] kv = forced.split("=");
            builder.set(switch (kv[0]) {
                case "allreduce" -> ConfigKey.ALLREDUCE_ALGORITHM;
                case "broadcast" -> ConfigKey.BROADCAST_ALGORITHM;
                default -> ConfigKey.ALLGATHER_ALGORITHM;
            }, kv[1]);
        }
        boolean reduces = switch (operation) {
            case ALL_REDUCE, REDUCE, REDUCE_SCATTER, SCAN, EXCLUSIVE_SCAN -> true;
            default -> false;
        };
        boolean rooted = switch (operation) {
            case BROADCAST, REDUCE, GATHER, SCATTER -> true;
            default -> false;
        };
        var spec = new OpSpec(operation, DataType.F32, reduces ? ReduceOp.SUM : null, count, rooted ? 0 : -1, null,
                null, false);
        var selector = new AlgorithmSelector(builder.build());
        assertThat(selector.select(spec, size)).isEqualTo(expected);
        // every rank plans with the selected algorithm without error
        for (int rank = 0; rank < Math.min(size, 3); rank++) {
            assertThat(selector.plan(rank, size, spec)).isNotNull();
        }
    }

    @Test
    void autoUsesThePipelinedRingFromAllreduceLargeSizeWhenItIsSet() {
        var selector = new AlgorithmSelector(NexarConfig.builder().ignoreEnvironment()
                .set(ConfigKey.ALLREDUCE_LARGE_SIZE, "8MiB").build());
        var below = new OpSpec(Operation.ALL_REDUCE, DataType.F32, ReduceOp.SUM, 2097151, -1, null, null, false);
        var at = new OpSpec(Operation.ALL_REDUCE, DataType.F32, ReduceOp.SUM, 2097152, -1, null, null, false);
        assertThat(selector.select(below, 4)).isEqualTo(Algo.RING_ALLREDUCE);
        assertThat(selector.select(at, 4)).isEqualTo(Algo.PIPELINED_RING_ALLREDUCE);
    }
}
