package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.CollectiveMismatchException;
import io.nexar.Communicator;
import io.nexar.NexarConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14: with {@code collective.verify=true}, 100% of mismatched calls (operation, count, type, reduce operator,
 * root) fail every rank with {@link CollectiveMismatchException} naming the field, and nothing of the call runs (the
 * communicator stays usable). Seeded trials over world sizes 2-9: each picks an operation, one rank, and one field
 * that rank gets wrong. The seed of every trial is printed; a failure names it.
 */
@Timeout(120)
class VerifyMismatchPropertyTest {
    private static final long BASE_SEED = Long.getLong("nexar.test.seed", 20261126L);
    private static final int TRIALS_PER_WORLD = 12;

    @Test
    void everyMismatchedFieldFailsEveryRankNamingIt() {
        System.out.println("VerifyMismatchPropertyTest seed " + BASE_SEED + " (-Dnexar.test.seed=... to repeat)");
        var config = NexarConfig.builder().ignoreEnvironment().collectiveVerify(true)
                .collectiveTimeout(Duration.ofSeconds(20)).build();
        for (int world = 2; world <= 9; world++) {
            try (var cluster = LocalCluster.start(world, config)) {
                var trials = new ArrayList<MismatchTrial>();
                for (int t = 0; t < TRIALS_PER_WORLD; t++) {
                    trials.add(MismatchTrial.of(BASE_SEED * 31 + world * 1000L + t, world));
                }
                var results = cluster.onEachRank(c -> {
                    var seen = new ArrayList<String>();
                    for (MismatchTrial trial : trials) {
                        seen.add(run(c, trial));
                        c.barrier(); // the communicator still works after each refused call
                    }
                    return seen;
                });
                for (int t = 0; t < trials.size(); t++) {
                    MismatchTrial trial = trials.get(t);
                    for (var e : results.entrySet()) {
                        assertThat(e.getValue().get(t)).as("world %d, %s, rank %d", world, trial, e.getKey())
                                .isEqualTo("mismatch " + trial.field());
                    }
                }
            }
        }
    }

    /** Rank {@code c.rank()}'s call of {@code t}: "mismatch FIELD" if it was refused, else "ran". */
    private static String run(Communicator c, MismatchTrial t) {
        try {
            t.call(c);
            return "ran";
        } catch (CollectiveMismatchException e) {
            return "mismatch " + e.field();
        }
    }
}
