package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.CollectiveMismatchException;
import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.NexarException;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * grow, split and group run collectives of their own (grow: a broadcast and an allReduce over the old world); when
 * one of those fails, the error names the operation the user called ({@link NexarException#operation()} and the
 * message), not the internal collective (issue 14).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GrowErrorNamingTest {
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment()
            .collectiveTimeout(Duration.ofSeconds(20)).build();

    @Test
    void shouldNameSplitAndGrowWhenAnotherRankCalledSomethingElse() {
        try (var cluster = LocalCluster.start(3, CONFIG, Duration.ofSeconds(45))) {
            Map<Integer, String> errors = cluster.onEachRank(c -> {
                Communicator d = c.dup();
                // split on a duplicate first (its collectives stay usable for the grow below)
                String split = c.rank() == 2 ? call(d::barrier) : call(() -> d.split(0, c.rank()));
                // grow's first collective is a broadcast from rank 0: rank 0 calls something else, so that the
                // others wait in it (a root that skipped it would leave them nothing to wait for)
                String grow = c.rank() == 0 ? call(c::barrier) : call(c::grow);
                return split + " | " + grow;
            });
            for (int r = 0; r < 2; r++) {
                assertThat(errors.get(r)).as("rank " + r).startsWith(CollectiveMismatchException.class.getSimpleName()
                        + " " + Operation.SPLIT + ": split on rank " + r + " (world 3, comm ");
            }
            assertThat(errors.get(2)).as("rank 2").startsWith(CollectiveMismatchException.class.getSimpleName()
                    + " " + Operation.BARRIER + ": barrier on rank 2 (world 3, comm ");
            for (int r = 1; r < 3; r++) {
                assertThat(errors.get(r)).as("rank " + r).contains(" | " + CollectiveMismatchException.class
                        .getSimpleName() + " " + Operation.GROW + ": grow on rank " + r + " (world 3, comm 0, seq ");
            }
            assertThat(errors.get(0)).as("rank 0").contains(" | " + CollectiveMismatchException.class.getSimpleName()
                    + " " + Operation.BARRIER + ": barrier on rank 0 (world 3, comm 0, seq ");
        }
    }

    @Test
    void shouldNameGrowWhenAPeerDiesDuringItsCollectives() {
        try (var cluster = LocalCluster.start(3, CONFIG, Duration.ofSeconds(45))) {
            Map<Integer, String> errors = cluster.onEachRank(c -> {
                if (c.rank() == 0) { // the root of grow's broadcast dies once the others wait in it
                    Await.until(() -> inGrow(cluster.communicator(1)) && inGrow(cluster.communicator(2)),
                            Duration.ofSeconds(20), "ranks 1 and 2 running grow's collectives");
                    cluster.crash(0);
                    return "crashed";
                }
                return call(c::grow);
            });
            for (int r = 1; r < 3; r++) {
                assertThat(errors.get(r)).as("rank " + r)
                        .startsWith(PeerFailedException.class.getSimpleName() + " " + Operation.GROW + ": grow on rank "
                                + r + " (world 3, comm 0, seq ")
                        .contains("rank 0");
            }
        }
    }

    /** True while {@code c}'s rank runs a collective on behalf of grow (its diagnostics say so). */
    private static boolean inGrow(Communicator c) {
        return c.diagnostics().contains(" for grow #");
    }

    /** Runs {@code body}; its nexar error as "Class operation: message", or "returned". */
    private static String call(Runnable body) {
        try {
            body.run();
            return "returned";
        } catch (NexarException e) {
            return e.getClass().getSimpleName() + " " + e.operation() + ": " + e.getMessage();
        }
    }
}
