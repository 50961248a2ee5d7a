package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.Communicator;
import io.nexar.ConfigKey;
import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import io.nexar.testkit.Inputs;
import io.nexar.testkit.ReferenceReduce;
import io.nexar.testkit.TestCluster;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reference part of the collective contract: results against a sequential reference for every operation, type
 * and operator, world sizes 1..9, counts 0, 1, below the world size, primes and larger; in place and out of place;
 * every algorithm forced. Each case of a matrix is a named case (algorithm, world, type, operator, count, mode) whose
 * failure message carries its seed; the cases of one algorithm and world size share a cluster ({@link SharedCluster}),
 * hence one test instance per class. {@link CollectiveContract} extends it, so every transport runs these cases.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class CollectiveReferenceCases {
    /** Seed of every random input; override with {@code -Dnexar.test.seed=...}. */
    protected static final long SEED = Long.getLong("nexar.test.seed", 0x5EED_C011L);
    static final List<DataType> TYPES = List.of(DataType.values());

    private final SharedCluster shared = new SharedCluster(SEED);

    /** For {@link CollectiveContract}. */
    protected CollectiveReferenceCases() {
    }

    /**
     * Starts {@code worldSize} connected ranks with {@code config}.
     *
     * @param worldSize the number of ranks
     * @param config the configuration of every rank
     * @return the running cluster; the test closes it
     */
    protected abstract TestCluster start(int worldSize, NexarConfig config);

    /**
     * A configuration for fast tests: small chunks and segments so that chunking and pipelining are exercised.
     *
     * @return a builder the tests add to or build as it is
     */
    protected NexarConfig.Builder config() {
        return NexarConfig.builder().ignoreEnvironment().p2pTimeout(Duration.ofSeconds(20))
                .collectiveTimeout(Duration.ofSeconds(20)).chunkBytes(1024).set(ConfigKey.PIPELINE_SEGMENT_SIZE, "1KiB");
    }

    @AfterAll
    void closeSharedCluster() {
        shared.close();
    }

    /**
     * The world sizes the case matrices (allReduce, every other operation) run on; all of 1 to
     * {@link CollectiveCases#MAX_WORLD} unless a subclass narrows it (a transport setting whose cost per cluster is
     * high and whose behaviour does not depend on each size, such as a sparse topology, runs a few chosen sizes).
     *
     * @param world a world size of the matrices
     * @return whether this suite runs the cases of that size
     */
    protected boolean matrixWorld(int world) {
        return true;
    }

    Stream<CollectiveCases.AllReduce> allReduceCases() {
        System.out.println("allReduce seed=" + SEED);
        return CollectiveCases.allReduce(SEED).stream().filter(k -> matrixWorld(k.world()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allReduceCases")
    void allReduceMatchesTheReference(CollectiveCases.AllReduce k) {
        int n = k.world();
        shared.run(k, () -> start(n, config().set(ConfigKey.ALLREDUCE_ALGORITHM, k.algorithm()).build()), c -> {
            var in = Inputs.exact(k.seed(), n, k.count(), k.type(), k.op());
            var expected = ReferenceReduce.fold(in, 0, k.count(), k.type(), k.op());
            var mine = Inputs.copy(in[c.rank()]);
            if (k.inPlace()) {
                c.allReduce(mine, k.type(), k.count(), k.op());
                same(mine, expected, "rank %d: %s", c.rank(), k);
            } else {
                var out = Inputs.zeros(k.count(), k.type());
                c.allReduce(mine, out, k.type(), k.count(), k.op());
                same(out, expected, "rank %d: %s", c.rank(), k);
                same(mine, in[c.rank()], "rank %d: %s: input untouched", c.rank(), k);
            }
            return null;
        });
    }

    Stream<CollectiveCases.EveryOperation> everyOperationCases() {
        System.out.println("everyOtherOperation seed=" + SEED);
        return CollectiveCases.everyOperation(SEED).stream().filter(k -> matrixWorld(k.world()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyOperationCases")
    void everyOtherOperationMatchesTheReference(CollectiveCases.EveryOperation k) {
        int n = k.world();
        shared.run(k, () -> start(n, config().set(ConfigKey.BROADCAST_ALGORITHM, k.broadcast())
                .set(ConfigKey.ALLGATHER_ALGORITHM, k.allGather()).build()), c -> {
            runAll(c, n, k.type(), k.op(), k.count(), k.seed());
            return null;
        });
    }

    static void runAll(Communicator c, int n, DataType type, ReduceOp op, long count, long seed) {
        int r = c.rank();
        int root = (int) (seed % n);
        String what = type + " " + op + " count " + count + " world " + n + " seed " + seed;
        var in = Inputs.exact(seed, n, count, type, op);
        // broadcast
        var data = r == root ? Inputs.copy(in[root]) : Inputs.zeros(count, type);
        c.broadcast(data, type, count, root);
        same(data, in[root], "broadcast " + what);
        // reduce
        var out = Inputs.zeros(count, type);
        c.reduce(Inputs.copy(in[r]), r == root ? out : null, type, count, op, root);
        if (r == root) {
            same(out, ReferenceReduce.fold(in, 0, count, type, op), "reduce " + what);
        }
        // allGather, gather: every rank's input in rank order
        var all = Inputs.zeros(count * n, type);
        c.allGather(Inputs.copy(in[r]), all, type, count);
        var gathered = Inputs.zeros(count * n, type);
        c.gather(Inputs.copy(in[r]), r == root ? gathered : null, type, count, root);
        int w = type.byteSize();
        for (int j = 0; j < n; j++) {
            same(all.asSlice(j * count * w, count * w), in[j], "allGather block " + j + " " + what);
            if (r == root) {
                same(gathered.asSlice(j * count * w, count * w), in[j], "gather block " + j + " " + what);
            }
        }
        // reduceScatter: rank r gets block r (W2)
        var big = Inputs.exact(seed + 1, n, count * n, type, op);
        var block = Inputs.zeros(count, type);
        c.reduceScatter(Inputs.copy(big[r]), block, type, count, op);
        same(block, ReferenceReduce.fold(big, r * count, count, type, op), "reduceScatter " + what);
        // scatter: rank j gets block j of the root's big input
        var part = Inputs.zeros(count, type);
        c.scatter(r == root ? Inputs.copy(big[root]) : null, part, type, count, root);
        same(part, big[root].asSlice(r * count * w, count * w), "scatter " + what);
        // allToAll: block j of rank r's input goes to rank j at block r
        var swapped = Inputs.zeros(count * n, type);
        c.allToAll(Inputs.copy(big[r]), swapped, type, count);
        for (int j = 0; j < n; j++) {
            same(swapped.asSlice(j * count * w, count * w), big[j].asSlice(r * count * w, count * w),
                    "allToAll block " + j + " " + what);
        }
        // scans
        var scan = Inputs.zeros(count, type);
        c.scan(Inputs.copy(in[r]), scan, type, count, op);
        same(scan, ReferenceReduce.prefix(in, r + 1, 0, count, type, op), "scan " + what);
        var ex = Inputs.zeros(count, type);
        c.exclusiveScan(Inputs.copy(in[r]), ex, type, count, op);
        same(ex, ReferenceReduce.prefix(in, r, 0, count, type, op), "exclusiveScan " + what);
        // V forms: rank j contributes (j + count) % 4 elements
        long[] counts = new long[n];
        for (int j = 0; j < n; j++) {
            counts[j] = (j + count) % 4;
        }
        long total = java.util.Arrays.stream(counts).sum();
        var vall = Inputs.zeros(total, type);
        c.allGatherV(Inputs.copy(in[r]).asSlice(0, Math.min(count, counts[r]) * w), vall, type,
                capped(counts, count));
        var vgat = Inputs.zeros(total, type);
        c.gatherV(Inputs.copy(in[r]).asSlice(0, Math.min(count, counts[r]) * w), r == root ? vgat : null, type,
                capped(counts, count), root);
        long off = 0;
        for (int j = 0; j < n; j++) {
            long k = Math.min(count, counts[j]);
            same(vall.asSlice(off * w, k * w), in[j].asSlice(0, k * w), "allGatherV block " + j + " " + what);
            if (r == root) {
                same(vgat.asSlice(off * w, k * w), in[j].asSlice(0, k * w), "gatherV block " + j + " " + what);
            }
            off += k;
        }
        c.barrier();
    }

    private static long[] capped(long[] counts, long count) {
        return java.util.Arrays.stream(counts).map(k -> Math.min(k, count)).toArray();
    }

    @Test
    void arrayOverloadsOfEveryPrimitiveTypeMatchTheReference() {
        int n = 3;
        try (var cluster = start(n, config().build())) {
            cluster.run(c -> {
                int r = c.rank();
                // small integers: every type reduces them exactly, so one expectation serves all four
                var allGathered = new float[2 * n];
                c.allGather(new float[] {r, 10 + r}, allGathered);
                assertThat(allGathered).containsExactly(0, 10, 1, 11, 2, 12);
                var ad = new double[2 * n];
                c.allGather(new double[] {r, 10 + r}, ad);
                assertThat(ad).containsExactly(0, 10, 1, 11, 2, 12);
                var al = new long[2 * n];
                c.allGather(new long[] {r, 10 + r}, al);
                assertThat(al).containsExactly(0, 10, 1, 11, 2, 12);
                var rsF = new float[1];
                c.reduceScatter(new float[] {1, 2, 3}, rsF, ReduceOp.SUM);
                assertThat(rsF[0]).isEqualTo(3f * (r + 1));
                var rsD = new double[1];
                c.reduceScatter(new double[] {1, 2, 3}, rsD, ReduceOp.SUM);
                assertThat(rsD[0]).isEqualTo(3.0 * (r + 1));
                var rsI = new int[1];
                c.reduceScatter(new int[] {1, 2, 3}, rsI, ReduceOp.SUM);
                assertThat(rsI[0]).isEqualTo(3 * (r + 1));
                var rsL = new long[1];
                c.reduceScatter(new long[] {1, 2, 3}, rsL, ReduceOp.MAX);
                assertThat(rsL[0]).isEqualTo(r + 1);
                var red = new int[2];
                c.reduce(new int[] {r, 1}, r == 1 ? red : null, ReduceOp.SUM, 1);
                if (r == 1) {
                    assertThat(red).containsExactly(3, 3);
                }
                var redL = new long[1];
                c.reduce(new long[] {r + 1}, redL, ReduceOp.PROD, 0);
                if (r == 0) {
                    assertThat(redL[0]).isEqualTo(6);
                }
                var redF = new float[1];
                c.reduce(new float[] {r}, redF, ReduceOp.MAX, 2);
                var redD = new double[1];
                c.reduce(new double[] {r}, redD, ReduceOp.MIN, 2);
                if (r == 2) {
                    assertThat(redF[0]).isEqualTo(2f);
                    assertThat(redD[0]).isEqualTo(0.0);
                }
                var scF = new float[1];
                c.scan(new float[] {r + 1}, scF, ReduceOp.SUM);
                assertThat(scF[0]).isEqualTo((r + 1) * (r + 2) / 2f);
                var scD = new double[1];
                c.scan(new double[] {r + 1}, scD, ReduceOp.PROD);
                assertThat(scD[0]).isEqualTo(r == 0 ? 1 : r == 1 ? 2 : 6);
                var scI = new int[1];
                c.scan(new int[] {r + 1}, scI, ReduceOp.MAX);
                assertThat(scI[0]).isEqualTo(r + 1);
                var exL = new long[1];
                c.exclusiveScan(new long[] {r + 1}, exL, ReduceOp.SUM);
                assertThat(exL[0]).isEqualTo(r * (r + 1) / 2);
                assertThatThrownBy(() -> c.scan(new int[1], null, ReduceOp.SUM))
                        .isInstanceOf(IllegalArgumentException.class).hasMessage("out must not be null");
                return null;
            });
        }
    }


    Stream<CollectiveCases.Deterministic> deterministicCases() {
        System.out.println("deterministic seed=" + SEED);
        return CollectiveCases.deterministic(SEED).stream(); // 16 cases: every suite runs them all
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deterministicCases")
    void deterministicModeMatchesTheSequentialFoldBitForBit(CollectiveCases.Deterministic k) {
        int n = k.world();
        DataType type = k.type();
        long count = 1_001;
        shared.run(k, () -> start(n, config().collectiveDeterministic(true).build()), c -> {
            var in = Inputs.random(k.seed(), n, count, type);
            var x = Inputs.copy(in[c.rank()]);
            c.allReduce(x, type, count, ReduceOp.SUM);
            same(x, ReferenceReduce.fold(in, 0, count, type, ReduceOp.SUM), "allReduce %s", k);
            var scan = Inputs.zeros(count, type);
            c.scan(Inputs.copy(in[c.rank()]), scan, type, count, ReduceOp.SUM);
            same(scan, ReferenceReduce.prefix(in, c.rank() + 1, 0, count, type, ReduceOp.SUM), "scan %s", k);
            return null;
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ring", "recursive-doubling", "halving-doubling", "pipelined-ring"})
    void everyRankGetsBitIdenticalAllReduceResults(String algorithm) {
        int n = 5;
        long count = 20_011;
        var in = Inputs.random(SEED, n, count, DataType.F32);
        try (var cluster = start(n, config().set(ConfigKey.ALLREDUCE_ALGORITHM, algorithm).build())) {
            var results = cluster.onEachRank(c -> {
                var x = Inputs.copy(in[c.rank()]);
                c.allReduce(x, DataType.F32, count, ReduceOp.SUM);
                return x.toArray(ValueLayout.JAVA_BYTE);
            });
            for (int r = 1; r < n; r++) {
                assertThat(results.get(r)).as("%s rank %d (seed %d)", algorithm, r, SEED).isEqualTo(results.get(0));
            }
        }
    }

    /** Asserts equal bytes. */
    static void same(MemorySegment actual, MemorySegment expected, String what, Object... args) {
        byte[] a = actual.asSlice(0, expected.byteSize()).toArray(ValueLayout.JAVA_BYTE);
        byte[] e = expected.toArray(ValueLayout.JAVA_BYTE);
        if (!java.util.Arrays.equals(a, e)) {
            throw new AssertionError(String.format(what, args) + ": bytes differ (seed " + SEED + ")");
        }
    }
}
