package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.CollectiveMismatchException;
import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.NexarException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14 item 2 without {@code collective.verify}: a mismatched call (operation, count, type, reduce operator,
 * root) on one rank is never silent. Seeded trials over world sizes 2-9, each on a fresh {@code dup()}: every rank
 * fails with {@link CollectiveMismatchException} naming the field, in the call or at the latest in one of its next
 * two collectives on that communicator (a rank whose own schedule saw nothing wrong learns it from the others;
 * docs/failure-model.md), and well before the collective timeout (fingerprint probes after 100 ms find the
 * disagreements that no data message crosses). The seed of every trial is printed; a failure names it.
 */
@Timeout(300)
class DefaultModeMismatchPropertyTest {
    private static final long BASE_SEED = Long.getLong("nexar.test.seed", 20261127L);
    private static final int TRIALS_PER_WORLD = 12;
    /** Long enough that a failure by timeout is told apart from a detected mismatch. */
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @Test
    void everyMismatchedFieldFailsEveryRankNamingItWithoutVerifyMode() {
        System.out.println("DefaultModeMismatchPropertyTest seed " + BASE_SEED + " (-Dnexar.test.seed=... to repeat)");
        var config = NexarConfig.builder().ignoreEnvironment().collectiveTimeout(TIMEOUT)
                .collectiveProbeAfter(Duration.ofMillis(100)).hangReportAfter(Duration.ZERO).build();
        for (int world = 2; world <= 9; world++) {
            try (var cluster = LocalCluster.start(world, config)) {
                var trials = new ArrayList<MismatchTrial>();
                for (int t = 0; t < TRIALS_PER_WORLD; t++) {
                    trials.add(MismatchTrial.of(BASE_SEED * 31 + world * 1000L + t, world));
                }
                var results = cluster.onEachRank(c -> {
                    var seen = new ArrayList<String>();
                    for (MismatchTrial trial : trials) {
                        try (Communicator dup = c.dup()) {
                            seen.add(run(dup, trial));
                        }
                    }
                    return seen;
                });
                for (int t = 0; t < trials.size(); t++) {
                    MismatchTrial trial = trials.get(t);
                    for (var e : results.entrySet()) {
                        assertThat(e.getValue().get(t)).as("world %d, %s, rank %d", world, trial, e.getKey())
                                .startsWith("mismatch " + trial.field() + " ");
                    }
                }
            }
        }
    }

    /**
     * Rank {@code c.rank()}'s call of {@code t} and then up to two barriers: "mismatch FIELD in call N after M ms" for
     * the first that failed so, else what happened instead.
     */
    private static String run(Communicator c, MismatchTrial t) {
        long start = System.nanoTime();
        for (int call = 0; call < 3; call++) {
            try {
                if (call > 0) {
                    c.barrier();
                    continue;
                }
                t.call(c);
            } catch (CollectiveMismatchException e) {
                long ms = (System.nanoTime() - start) / 1_000_000;
                return ms < TIMEOUT.toMillis() / 2 ? "mismatch " + e.field() + " in call " + call + " after " + ms
                        + " ms" : "mismatch found only after " + ms + " ms: " + e.getMessage();
            } catch (NexarException e) {
                return "call " + call + ": " + e.getClass().getSimpleName() + ": " + e.getMessage();
            }
        }
        return "no error in the call and the two barriers after it";
    }
}
