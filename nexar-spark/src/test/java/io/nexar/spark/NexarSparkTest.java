package io.nexar.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.NexarException;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaRDD;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Barrier stages of four tasks in the shared local Spark: the communicator's ranks and world, an allReduce across the
 * tasks, and a task that fails after forming.
 */
@Timeout(300) // the first test to run starts the shared Spark session (30-40 s on a loaded 2-core machine)
class NexarSparkTest {

    /** What the surviving tasks of the failing attempt saw; the tasks run in this JVM (local mode). */
    private static final Queue<String> OUTCOMES = new ConcurrentLinkedQueue<>();

    @Test
    void shouldGiveEachTaskItsPartitionAsRankAndSumAcrossTheStage() {
        JavaRDD<Integer> rdd = SharedSpark.context().parallelize(List.of(10, 20, 30, 40, 50, 60, 70, 80), 4);
        List<String> out = NexarSpark.mapPartitions(rdd, (world, rows) -> {
            long local = 0;
            while (rows.hasNext()) {
                local += rows.next();
            }
            long[] sum = {local};
            world.allReduce(sum, ReduceOp.SUM);
            var ctx = BarrierTaskContext.get();
            return List.of(world.rank() + "/" + world.worldSize() + " partition " + ctx.partitionId() + " sum "
                    + sum[0]);
        }).collect();
        assertThat(out).containsExactlyInAnyOrder("0/4 partition 0 sum 360", "1/4 partition 1 sum 360",
                "2/4 partition 2 sum 360", "3/4 partition 3 sum 360");
    }

    @Test
    void shouldFailTheOtherTasksWithPeerFailedWhenOneThrowsAndPassOnTheRetriedStage() {
        OUTCOMES.clear();
        JavaRDD<Integer> rdd = SharedSpark.context().parallelize(List.of(0, 1, 2, 3), 4);
        long start = System.nanoTime();
        List<String> out = NexarSpark.mapPartitions(rdd, (world, rows) -> {
            int attempt = BarrierTaskContext.get().stageAttemptNumber();
            float[] formed = {1};
            world.allReduce(formed, ReduceOp.SUM); // every task formed and reached this point
            if (attempt == 0) {
                if (world.rank() == 2) {
                    throw new IllegalStateException("rank 2 fails on purpose after forming");
                }
                long waitStart = System.nanoTime();
                try {
                    world.allReduce(new float[] {1}, ReduceOp.SUM); // rank 2 never joins this one
                    OUTCOMES.add("rank " + world.rank() + ": allReduce completed without rank 2");
                } catch (NexarException e) {
                    OUTCOMES.add("rank " + world.rank() + ": " + e.getClass().getSimpleName() + " peer "
                            + e.peer() + " after " + (System.nanoTime() - waitStart) / 1_000_000 + " ms: "
                            + e.getMessage());
                    throw e;
                }
            }
            return List.of("rank " + world.rank() + " attempt " + attempt + " sum " + formed[0]);
        }).repartition(1).collect(); // a shuffle after it makes the barrier stage a ShuffleMapStage, which Spark
                                     // retries (it aborts a failed barrier ResultStage: docs/spark.md)
        System.out.printf("failing-then-retried stage took %d ms; attempt 0: %s%n",
                (System.nanoTime() - start) / 1_000_000, OUTCOMES);
        assertThat(out).containsExactlyInAnyOrder("rank 0 attempt 1 sum 4.0", "rank 1 attempt 1 sum 4.0",
                "rank 2 attempt 1 sum 4.0", "rank 3 attempt 1 sum 4.0");
        List<String> seen = new ArrayList<>(OUTCOMES);
        assertThat(seen).hasSize(3).allSatisfy(o -> assertThat(o)
                .contains(PeerFailedException.class.getSimpleName() + " peer OptionalInt[2]"));
        for (String o : seen) { // "at once": far below the collective timeout (30 s) the allReduce would otherwise hit
            long ms = Long.parseLong(o.replaceFirst(".* after (\\d+) ms:.*", "$1"));
            assertThat(Duration.ofMillis(ms)).as(o).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void shouldEndTheJobAtOnceWhenATaskOfABarrierResultStageFails() {
        JavaRDD<Integer> rdd = SharedSpark.context().parallelize(List.of(0, 1, 2, 3), 4);
        long start = System.nanoTime();
        assertThatThrownBy(() -> NexarSpark.mapPartitions(rdd, (world, rows) -> {
            if (world.rank() == 1) {
                throw new IllegalStateException("rank 1 fails on purpose after forming");
            }
            world.barrier(); // rank 1 never arrives; its close fails this on the others (PeerFailedException)
            return List.of(world.rank());
        }).collect()) // the last stage of the job: Spark does not retry a failed barrier ResultStage
                .isInstanceOf(SparkException.class)
                .hasMessageContaining("Could not recover from a failed barrier ResultStage");
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.println("failed barrier ResultStage ended the job after " + took.toMillis() + " ms");
        assertThat(took).isLessThan(Duration.ofSeconds(60)); // far below the formation and collective timeouts
    }
}
