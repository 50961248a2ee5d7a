package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.CollectiveMismatchException;
import io.nexar.CollectiveMismatchException.Field;
import io.nexar.Communicator;
import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.NexarException;
import io.nexar.ReduceOp;
import io.nexar.testkit.Inputs;
import io.nexar.testkit.TestCluster;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14 item 2, without {@code collective.verify}: reduce, gather, scatter and broadcast with root 0 on rank 0
 * and root 1 on the others. In reduce and gather no message crosses the disagreement (each rank that believes
 * itself the root only receives), so only the stalled ranks' fingerprint probes prove it; every rank must fail with
 * {@link CollectiveMismatchException} naming {@link Field#ROOT} (in the call, or at the latest in one of its next two
 * calls on that communicator), long before {@code collective.timeout}. Seeded: counts and types vary (so do the
 * algorithms); the seed is printed. Run over each transport by a subclass.
 */
@Timeout(180)
public abstract class RootMismatchContract {
    private static final long SEED = Long.getLong("nexar.test.seed", 20261127L);
    private static final int TRIALS = 6;
    /** Long enough that a failure by timeout is told apart from a detected mismatch. */
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    /**
     * When a stalled round probes (the default is 1 s): a reduce or gather trial waits this long before its probes
     * find the mismatch, so 12 such trials at the default spent 12 s per transport waiting on a timer. A shorter wait
     * runs the same probes and checks the same outcome.
     */
    private static final Duration PROBE_AFTER = Duration.ofMillis(250);

    /** For subclasses, one per transport. */
    protected RootMismatchContract() {
    }

    /**
     * Starts the cluster the contract runs on.
     *
     * @param worldSize the number of ranks
     * @param config the configuration of every rank
     * @return the started cluster
     */
    protected abstract TestCluster start(int worldSize, NexarConfig config);

    @Test
    void shouldFailEveryRankNamingTheRootWithoutVerifyMode() {
        System.out.println(getClass().getSimpleName() + " seed " + SEED + " (-Dnexar.test.seed=... to repeat)");
        var config = NexarConfig.builder().ignoreEnvironment().collectiveTimeout(TIMEOUT)
                .collectiveProbeAfter(PROBE_AFTER).hangReportAfter(Duration.ZERO).build();
        var rng = new Random(SEED);
        try (var cluster = start(4, config)) {
            for (int t = 0; t < TRIALS; t++) {
                for (String op : List.of("reduce", "gather", "scatter", "broadcast")) {
                    long count = rng.nextBoolean() ? 1 + rng.nextInt(16) : 1 + rng.nextInt(40_000);
                    DataType type = rng.nextBoolean() ? DataType.F32 : DataType.I64;
                    String trial = "trial " + t + " (seed " + SEED + "): " + op + " of " + count + " " + type;
                    var results = cluster.onEachRank(c -> run(c, op, count, type));
                    for (var e : results.entrySet()) {
                        assertThat(e.getValue()).as("%s, rank %d", trial, e.getKey()).startsWith("mismatch ROOT");
                    }
                }
            }
        }
    }

    /** One rank's call: "mismatch FIELD after N ms" if it failed so, else what happened instead. */
    private static String run(Communicator world, String op, long count, DataType type) {
        int root = world.rank() == 0 ? 0 : 1;
        long start = System.nanoTime();
        try (Communicator c = world.dup()) {
            MemorySegment in = Inputs.zeros(count * c.worldSize(), type);
            MemorySegment out = Inputs.zeros(count * c.worldSize(), type);
            try {
                switch (op) {
                    case "reduce" -> c.reduce(in, out, type, count, ReduceOp.SUM, root);
                    case "gather" -> c.gather(in, out, type, count, root);
                    case "scatter" -> c.scatter(in, out, type, count, root);
                    default -> c.broadcast(in, type, count, root);
                }
                // A rank whose call returned learns of the mismatch in one of its next two calls: a rank whose own
                // schedule saw nothing wrong (a scatter root) can finish the first barrier when the others had sent
                // their part of it before the late chunks told them (docs/failure-model.md); none can finish both.
                c.barrier();
                c.barrier();
                return "no error";
            } catch (CollectiveMismatchException e) {
                long ms = (System.nanoTime() - start) / 1_000_000;
                // well before the timeout: a mismatch found by waiting it out would not count
                return ms < TIMEOUT.toMillis() / 2 ? "mismatch " + e.field() + ": " + e.getMessage()
                        : "mismatch found only after " + ms + " ms: " + e.getMessage();
            } catch (NexarException e) {
                return e.getClass().getSimpleName() + ": " + e.getMessage();
            }
        }
    }
}
