package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.Communicator;
import io.nexar.MembershipEvent;
import io.nexar.NexarConfig;
import io.nexar.PeerFailedException;
import io.nexar.RecoveryPolicy;
import io.nexar.ReduceOp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Recovery policies on the in-process transport: a rank crashes after its k-th operation (an event, not a timer)
 * and every survivor sees what its policy promises. Multi-process versions over QUIC are in the CLI module.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RecoveryTest {
    private static final Duration RUN = Duration.ofSeconds(45);

    private static NexarConfig config(RecoveryPolicy policy) {
        return NexarConfig.builder().ignoreEnvironment().recoveryPolicy(policy)
                .collectiveTimeout(Duration.ofSeconds(20)).recoveryTimeout(Duration.ofSeconds(20)).build();
    }

    @Test
    void shouldFailEveryOperationNamingTheDeadRankUnderAbort() {
        try (var cluster = LocalCluster.start(4, config(RecoveryPolicy.ABORT), RUN)) {
            Map<Integer, String> errors = cluster.onEachRank(c -> {
                float[] x = {1};
                for (int i = 0; ; i++) {
                    if (c.rank() == 2 && i == 5) {
                        cluster.crash(2);
                        return "crashed";
                    }
                    try {
                        c.allReduce(x, ReduceOp.SUM);
                    } catch (PeerFailedException e) {
                        // later operations of any kind fail at once too, naming the same rank
                        var later = org.assertj.core.api.Assertions.catchThrowableOfType(PeerFailedException.class,
                                () -> c.recv((c.rank() + 1) % 4, 0, new float[1]));
                        return e.getMessage() + " | " + later.getMessage();
                    }
                }
            });

            for (int r : new int[] {0, 1, 3}) {
                assertThat(errors.get(r)).contains("rank 2 crashed").contains("(recovery policy abort)");
            }
        }
    }

    @Test
    void shouldAnnounceARebuildOnceWhenAnAsyncOperationFailed() {
        try (var cluster = LocalCluster.start(4, config(RecoveryPolicy.AUTOMATIC), RUN)) {
            var posted = new CountDownLatch(3);
            Map<Integer, String> results = cluster.onEachRank(c -> {
                if (c.rank() == 3) { // crashes once the others have posted an operation that needs it
                    posted.await();
                    cluster.crash(3);
                    return "crashed";
                }
                float[] x = {1};
                var handle = c.allReduceAsync(java.lang.foreign.MemorySegment.ofArray(x),
                        java.lang.foreign.MemorySegment.ofArray(x), io.nexar.DataType.F32, 1, ReduceOp.SUM);
                posted.countDown();
                String async;
                try {
                    handle.await();
                    async = "async completed";
                } catch (PeerFailedException e) {
                    async = "async failed";
                }
                // the failure seen through the handle was the announcement: the next calls run on the rebuilt world
                float[] y = {1};
                c.allReduce(y, ReduceOp.SUM);
                c.barrier();
                return async + ", then size " + c.worldSize() + " sum " + y[0];
            });
            for (int r = 0; r < 3; r++) {
                assertThat(results.get(r)).isEqualTo("async failed, then size 3 sum 3.0");
            }
        }
    }

    @Test
    void shouldContinueWithTheSurvivorsUnderAutomaticAndRecoverTwice() {
        try (var cluster = LocalCluster.start(4, config(RecoveryPolicy.AUTOMATIC), RUN)) {
            List<MembershipEvent> events = new CopyOnWriteArrayList<>();
            cluster.communicator(0).watch(events::add);
            Map<Integer, String> results = cluster.onEachRank(c -> {
                int world = c.rank();
                int failures = 0;
                float[] x = new float[1];
                for (int i = 0; i < 30; i++) {
                    if ((world == 2 && i == 5) || (world == 3 && i == 15)) {
                        cluster.crash(world);
                        return "crashed at " + i;
                    }
                    x[0] = world + 1;
                    int size = c.worldSize();
                    try {
                        c.allReduce(x, ReduceOp.SUM);
                    } catch (PeerFailedException e) {
                        failures++;
                        i = Resync.step(c, i) - 1; // the step no survivor is sure of again, on the rebuilt communicator
                        continue;
                    }
                    float expected = switch (size) { // the sum of world rank + 1 over the members
                        case 4 -> 1 + 2 + 3 + 4;
                        case 3 -> 1 + 2 + 4;
                        default -> 1 + 2;
                    };
                    assertThat(x[0]).as("world rank %d step %d", world, i).isEqualTo(expected);
                }
                return "size " + c.worldSize() + " rank " + c.rank() + " failures " + failures;
            });

            assertThat(results.get(0)).startsWith("size 2 rank 0");
            assertThat(results.get(1)).startsWith("size 2 rank 1");
            // listeners run on the membership thread, which emits a rebuild's event just after the survivors may go
            // on: the callers can return before rank 0's listener got the second one
            Await.until(() -> events.stream().filter(e -> e instanceof MembershipEvent.Rebuilt).count() >= 2,
                    Duration.ofSeconds(10), "rank 0's listener got both Rebuilt events");
            var rebuilt = events.stream().filter(e -> e instanceof MembershipEvent.Rebuilt)
                    .map(e -> (MembershipEvent.Rebuilt) e).toList();
            assertThat(rebuilt).hasSize(2);
            assertThat(rebuilt.get(0).oldToNew()).containsExactly(0, 1, -1, 2);
            assertThat(rebuilt.get(0).failed()).containsExactly(2);
            assertThat(rebuilt.get(1).oldToNew()).containsExactly(0, 1, -1);
            assertThat(rebuilt.get(1).size()).isEqualTo(2);
            assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOf(MembershipEvent.RankFailed.class));
        }
    }

    @Test
    void shouldGiveEverySurvivorTheSameCommunicatorOnShrinkUnderManual() {
        try (var cluster = LocalCluster.start(5, config(RecoveryPolicy.MANUAL), RUN)) {
            var crashed = new CountDownLatch(1);
            Map<Integer, String> results = cluster.onEachRank(c -> {
                if (c.rank() == 1) {
                    c.allReduce(new float[] {1}, ReduceOp.SUM);
                    cluster.crash(1);
                    crashed.countDown();
                    return "crashed";
                }
                try {
                    c.allReduce(new float[] {1}, ReduceOp.SUM);
                } catch (PeerFailedException e) {
                    // rank 1 had its result and crashed while this rank's part was still running: fine
                }
                assertThat(crashed.await(20, TimeUnit.SECONDS)).isTrue();
                assertThatThrownBy(() -> c.allReduce(new float[] {1}, ReduceOp.SUM))
                        .isInstanceOf(PeerFailedException.class).hasMessageContaining("rank 1");
                Communicator survivors = c.shrink();
                float[] x = {c.rank()};
                survivors.allReduce(x, ReduceOp.SUM);
                // point-to-point on the new numbering too
                int next = (survivors.rank() + 1) % survivors.worldSize();
                int prev = (survivors.rank() + survivors.worldSize() - 1) % survivors.worldSize();
                survivors.send(next, 9, new int[] {survivors.rank()});
                int[] got = new int[1];
                survivors.recv(prev, 9, got);
                return survivors.worldSize() + "/" + survivors.rank() + "/" + x[0] + "/" + got[0];
            });

            assertThat(results.get(0)).isEqualTo("4/0/9.0/3");
            assertThat(results.get(2)).isEqualTo("4/1/9.0/0");
            assertThat(results.get(3)).isEqualTo("4/2/9.0/1");
            assertThat(results.get(4)).isEqualTo("4/3/9.0/2");
        }
    }

    @Test
    void shouldExcludeARankThatOnlyOneSurvivorCannotReach() {
        try (var cluster = LocalCluster.start(4, config(RecoveryPolicy.AUTOMATIC), RUN)) {
            var excluded = new CountDownLatch(1);
            cluster.communicator(3).watch(e -> {
                if (e instanceof MembershipEvent.Excluded) {
                    excluded.countDown();
                }
            });
            var firstDone = new CountDownLatch(4);
            Map<Integer, String> results = cluster.onEachRank(c -> {
                float[] x = {1};
                c.allReduce(x, ReduceOp.SUM);
                firstDone.countDown();
                if (c.rank() == 0) {
                    assertThat(firstDone.await(20, TimeUnit.SECONDS)).isTrue();
                    // only rank 0 loses rank 3 (a partial partition); rank 3 is alive
                    cluster.suspect(0, 3, "is unreachable (test fault: partition)");
                }
                if (c.rank() == 3) {
                    assertThat(excluded.await(20, TimeUnit.SECONDS)).isTrue();
                    assertThatThrownBy(() -> c.allReduce(new float[] {1}, ReduceOp.SUM))
                            .isInstanceOf(PeerFailedException.class).hasMessageContaining("excluded");
                    return "excluded";
                }
                for (int attempt = 0; attempt < 3; attempt++) {
                    x[0] = 1;
                    try {
                        c.allReduce(x, ReduceOp.SUM);
                        return c.worldSize() + ":" + x[0];
                    } catch (PeerFailedException e) {
                        // the operation that saw the exclusion; retried on the rebuilt communicator
                    }
                }
                return "no progress";
            });

            assertThat(results.get(0)).isEqualTo("3:3.0");
            assertThat(results.get(1)).isEqualTo("3:3.0");
            assertThat(results.get(2)).isEqualTo("3:3.0");
        }
    }

    @Test
    void shouldContinueWithoutARankThatLeavesPolitelyUnderAutomatic() {
        try (var cluster = LocalCluster.start(4, config(RecoveryPolicy.AUTOMATIC), RUN)) {
            Map<Integer, String> results = cluster.onEachRank(c -> {
                int world = c.rank();
                double[] x = new double[3];
                for (int i = 0; i < 20; i++) {
                    if (world == 3 && i == 8) {
                        c.close(); // leaves: peers see a Goodbye, not a failure
                        return "left";
                    }
                    java.util.Arrays.fill(x, 1);
                    int size = c.worldSize();
                    try {
                        c.allReduce(x, ReduceOp.SUM);
                    } catch (PeerFailedException e) {
                        i = Resync.step(c, i) - 1;
                        continue;
                    }
                    assertThat(x).containsOnly(size);
                }
                return c.worldSize() + "/" + c.rank();
            });

            assertThat(results).containsEntry(0, "3/0").containsEntry(1, "3/1").containsEntry(2, "3/2");
        }
    }

    /**
     * The end of a job under automatic recovery: every rank runs the same allReduces and closes its communicator as
     * soon as its own last one returns, without waiting for the others. A rank that finishes first leaves politely
     * while the others may still be inside that last operation; they have (or will get) everything they need from it,
     * so none of them may fail. With 3 ranks and 64 KiB (halving-doubling with a folded rank), rank 1 finishes first and
     * rank 2 last: it only waits for rank 0's result while ranks 0 and 1 leave, and the world's recovery (rebuild
     * without rank 1, or no quorum once both left) runs while the last operations finish. With 5 ranks four leave
     * around the last one; with 4, two may leave while two still wait for each other (no quorum for them either).
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0} ranks")
    @org.junit.jupiter.params.provider.ValueSource(ints = {3, 4, 5})
    void shouldLetTheLastOperationsFinishWhenRanksCloseOneAfterAnotherUnderAutomatic(int size) {
        for (int run = 0; run < 10; run++) {
            try (var cluster = LocalCluster.start(size, config(RecoveryPolicy.AUTOMATIC), RUN)) {
                Map<Integer, String> results = cluster.onEachRank(c -> EndOfJob.allReducesThenClose(c, 5));

                assertThat(results.values()).as("run %d: %s", run, results).hasSize(size).containsOnly("done");
            }
        }
    }

    @Test
    void shouldFailEverySurvivorWhenTooFewRanksWouldRemain() {
        var config = config(RecoveryPolicy.AUTOMATIC).toBuilder().worldMinSize(4).build();
        try (var cluster = LocalCluster.start(4, config, RUN)) {
            Map<Integer, String> results = cluster.onEachRank(c -> {
                if (c.rank() == 1) {
                    cluster.crash(1);
                    return "crashed";
                }
                for (int attempt = 0; ; attempt++) {
                    try {
                        c.allReduce(new float[] {1}, ReduceOp.SUM);
                    } catch (PeerFailedException e) {
                        if (e.getMessage().contains("world.min.size") || attempt == 5) {
                            return e.getMessage();
                        }
                    }
                }
            });

            for (int r : new int[] {0, 2, 3}) {
                assertThat(results.get(r)).contains("only 3 of 4 ranks would remain")
                        .contains("fewer than setting world.min.size 4");
            }
        }
    }

    @Test
    void shouldRecoverRepeatedlyInALargerCluster() {
        int n = 9;
        try (var cluster = LocalCluster.start(n, config(RecoveryPolicy.AUTOMATIC), RUN)) {
            Map<Integer, Integer> sizes = cluster.onEachRank(c -> {
                int world = c.rank();
                long[] x = new long[1];
                for (int i = 0; i < 40; i++) {
                    if (world >= 5 && i == 4 * (world - 4)) { // ranks 5..8 crash one after another
                        cluster.crash(world);
                        return -1;
                    }
                    x[0] = 1;
                    int size = c.worldSize(); // a rebuild after the operation may change it before the check
                    try {
                        c.allReduce(x, ReduceOp.SUM);
                    } catch (PeerFailedException e) {
                        i = Resync.step(c, i) - 1;
                        continue;
                    }
                    assertThat(x[0]).isEqualTo(size);
                }
                return c.worldSize();
            });
            for (int r = 0; r < 5; r++) {
                assertThat(sizes.get(r)).isEqualTo(5);
            }
        }
    }
}
