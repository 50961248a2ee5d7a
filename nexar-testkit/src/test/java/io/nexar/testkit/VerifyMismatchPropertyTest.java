package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.CollectiveMismatchException;
import io.nexar.CollectiveMismatchException.Field;
import io.nexar.Communicator;
import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
    private static final long COUNT = 12;

    /** A call every rank makes, and the one field the odd rank gets wrong. */
    private record Trial(long seed, String op, int odd, Field field, int root) {
    }

    @Test
    void everyMismatchedFieldFailsEveryRankNamingIt() {
        System.out.println("VerifyMismatchPropertyTest seed " + BASE_SEED + " (-Dnexar.test.seed=... to repeat)");
        var config = NexarConfig.builder().ignoreEnvironment().collectiveVerify(true)
                .collectiveTimeout(Duration.ofSeconds(20)).build();
        for (int world = 2; world <= 9; world++) {
            try (var cluster = LocalCluster.start(world, config)) {
                var trials = new ArrayList<Trial>();
                for (int t = 0; t < TRIALS_PER_WORLD; t++) {
                    trials.add(trial(BASE_SEED * 31 + world * 1000L + t, world));
                }
                var results = cluster.onEachRank(c -> {
                    var seen = new ArrayList<String>();
                    for (Trial trial : trials) {
                        seen.add(run(c, trial));
                        c.barrier(); // the communicator still works after each refused call
                    }
                    return seen;
                });
                for (int t = 0; t < trials.size(); t++) {
                    Trial trial = trials.get(t);
                    for (var e : results.entrySet()) {
                        assertThat(e.getValue().get(t)).as("world %d, %s, rank %d", world, trial, e.getKey())
                                .isEqualTo("mismatch " + trial.field());
                    }
                }
            }
        }
    }

    private static Trial trial(long seed, int world) {
        var rng = new Random(seed);
        List<String> ops = List.of("allReduce", "reduce", "broadcast", "gather", "scatter", "allGather");
        String op = ops.get(rng.nextInt(ops.size()));
        var fields = new ArrayList<>(List.of(Field.OPERATION, Field.COUNT, Field.DATA_TYPE));
        if (op.equals("allReduce") || op.equals("reduce")) {
            fields.add(Field.REDUCE_OP);
        }
        if (op.equals("reduce") || op.equals("broadcast") || op.equals("gather") || op.equals("scatter")) {
            fields.add(Field.ROOT);
        }
        return new Trial(seed, op, rng.nextInt(world), fields.get(rng.nextInt(fields.size())), rng.nextInt(world));
    }

    /** Rank {@code c.rank()}'s call of {@code t}: "mismatch FIELD" if it was refused, else "ran". */
    private static String run(Communicator c, Trial t) {
        boolean odd = c.rank() == t.odd();
        String op = odd && t.field() == Field.OPERATION ? (t.op().equals("allGather") ? "allReduce" : "allGather")
                : t.op();
        long count = odd && t.field() == Field.COUNT ? COUNT + 1 : COUNT;
        DataType type = odd && t.field() == Field.DATA_TYPE ? DataType.I32 : DataType.F32;
        ReduceOp rop = odd && t.field() == Field.REDUCE_OP ? ReduceOp.MAX : ReduceOp.SUM;
        int root = odd && t.field() == Field.ROOT ? (t.root() + 1) % c.worldSize() : t.root();
        long room = (COUNT + 1) * c.worldSize();
        MemorySegment in = Inputs.zeros(room, type);
        MemorySegment out = Inputs.zeros(room, type);
        try {
            switch (op) {
                case "allReduce" -> c.allReduce(in, out, type, count, rop);
                case "reduce" -> c.reduce(in, out, type, count, rop, root);
                case "broadcast" -> c.broadcast(in, type, count, root);
                case "gather" -> c.gather(in, out, type, count, root);
                case "scatter" -> c.scatter(in, out, type, count, root);
                default -> c.allGather(in, out, type, count);
            }
            return "ran";
        } catch (CollectiveMismatchException e) {
            return "mismatch " + e.field();
        }
    }
}
