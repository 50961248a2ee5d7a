package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.CollectiveMismatchException;
import io.nexar.Compressor;
import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import io.nexar.testkit.Inputs;
import io.nexar.testkit.ReferenceReduce;
import io.nexar.testkit.TestCluster;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract of bucketed and compressed allReduce (issue 15 items 3 and 4) that every transport must pass: results
 * against sequential references, bit-identical results on every rank, error feedback that loses nothing, layout
 * mismatches that fail every rank, the async and array forms. A transport's test is a one-line subclass. Inputs are
 * seeded; the seed is printed. The matrix tests are named cases ({@link AllReduceVariantsCases}) whose failure
 * messages carry their seed; the cases of one world size share a cluster, hence one test instance per class.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AllReduceVariantsContract {
    /** Seed of every random input; override with {@code -Dnexar.test.seed=...}. */
    protected static final long SEED = Long.getLong("nexar.test.seed", 0x5EED_B0C7L);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final SharedCluster shared = new SharedCluster(SEED);

    /** For a transport's one-line subclass. */
    protected AllReduceVariantsContract() {
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
     * Small chunks, so that payloads and buckets span several messages.
     *
     * @return a builder the tests add to or build as it is
     */
    protected NexarConfig.Builder config() {
        return NexarConfig.builder().ignoreEnvironment().p2pTimeout(Duration.ofSeconds(20))
                .collectiveTimeout(Duration.ofSeconds(20)).chunkBytes(1024);
    }

    @AfterAll
    void closeSharedCluster() {
        shared.close();
    }

    static Stream<AllReduceVariantsCases.Bucketed> bucketedCases() {
        System.out.println("bucketedAllReduce seed=" + SEED);
        return AllReduceVariantsCases.bucketed(SEED).stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bucketedCases")
    void bucketedAllReduceMatchesTheReferencePerBucket(AllReduceVariantsCases.Bucketed k) {
        int n = k.world();
        DataType type = k.type();
        ReduceOp op = k.op();
        long[] layout = k.layout();
        shared.run(k, () -> start(n, config().build()), c -> {
            if (k.form().equals(AllReduceVariantsCases.ARRAY_FORM)) {
                float[][] buckets = {{1, 2, 3}, {}, {c.rank()}};
                c.allReduce(buckets, ReduceOp.SUM);
                assertThat(buckets[0]).as("%s", k).containsExactly(n, 2f * n, 3f * n);
                assertThat(buckets[2]).as("%s", k).containsExactly(n * (n - 1) / 2f);
                return null;
            }
            var inputs = new ArrayList<MemorySegment[]>();
            var mine = new ArrayList<MemorySegment>();
            for (int b = 0; b < layout.length; b++) {
                var in = Inputs.exact(k.seed() + b, n, layout[b], type, op);
                inputs.add(in);
                mine.add(Inputs.copy(in[c.rank()]));
            }
            if (k.form().equals("async")) {
                c.allReduceAsync(mine, type, op).await();
            } else {
                c.allReduce(mine, type, op);
            }
            for (int b = 0; b < layout.length; b++) {
                var expected = ReferenceReduce.fold(inputs.get(b), 0, layout[b], type, op);
                assertThat(mine.get(b).toArray(ValueLayout.JAVA_BYTE)).as("rank %d: bucket %d of %s", c.rank(), b, k)
                        .isEqualTo(expected.toArray(ValueLayout.JAVA_BYTE));
            }
            return null;
        });
    }

    /** One rank's buckets differ (same total), or one rank calls a plain allReduce of the total: LAYOUT everywhere. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sizes", "plain"})
    void aBucketLayoutMismatchFailsEveryRank(String how) {
        try (var cluster = start(3, config().collectiveTimeout(Duration.ofSeconds(10)).build())) {
            var results = cluster.onEachRank(c -> {
                boolean odd = c.rank() == 1;
                try {
                    if (odd && how.equals("plain")) {
                        c.allReduce(Inputs.zeros(16, DataType.F32), DataType.F32, 16, ReduceOp.SUM);
                    } else {
                        int first = odd ? 8 : 4;
                        c.allReduce(List.of(Inputs.zeros(first, DataType.F32), Inputs.zeros(16 - first,
                                DataType.F32)), DataType.F32, ReduceOp.SUM);
                    }
                    c.barrier(); // a rank that finished first learns of the mismatch here
                    return null;
                } catch (CollectiveMismatchException e) {
                    return e;
                }
            });
            results.forEach((rank, e) -> {
                assertThat(e).as("rank %d", rank).isNotNull();
                assertThat(e.field()).as("rank %d: %s", rank, e.getMessage())
                        .isEqualTo(CollectiveMismatchException.Field.LAYOUT);
            });
        }
    }

    static Stream<AllReduceVariantsCases.CompressedExact> compressedExactCases() {
        System.out.println("compressed exact seed=" + SEED);
        return AllReduceVariantsCases.compressedExact(SEED).stream();
    }

    /** With every element kept, a compressed allReduce is the exact reduction, and nothing is left in the residual. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("compressedExactCases")
    void compressedWithEveryElementKeptIsTheExactReduction(AllReduceVariantsCases.CompressedExact k) {
        int n = k.world();
        DataType type = k.type();
        ReduceOp op = k.op();
        long count = k.count();
        var results = shared.run(k, () -> start(n, config().build()), c -> {
            var in = Inputs.exact(k.seed(), n, count, type, op);
            var data = Inputs.copy(in[c.rank()]);
            DataType rt = type == DataType.F64 ? DataType.F64 : DataType.F32;
            var residual = Inputs.zeros(count, rt);
            Compressor all = k.topK() ? Compressor.TopK.ratio(1) : new Compressor.RandomK(count + 5, k.seed());
            c.allReduceCompressed(data, type, count, op, all, residual);
            var expected = ReferenceReduce.fold(in, 0, count, type, op);
            for (long i = 0; i < count; i++) {
                // + 0.0: -0.0 and 0.0 are the same sum (the reduction starts from 0)
                assertThat(value(data, i, type) + 0.0).as("rank %d: %s: element %d", c.rank(), k, i)
                        .isEqualTo(value(expected, i, type) + 0.0);
                assertThat(value(residual, i, rt)).as("rank %d: %s: residual %d", c.rank(), k, i).isZero();
            }
            return List.of(data.toArray(ValueLayout.JAVA_BYTE));
        });
        identicalOnEveryRank(results);
    }

    /**
     * Top-k and random-k at 10% on random F32 inputs over three calls with error feedback: every rank gets the same
     * bits, top-k's result is what a sort-based reference of the same rules gives, random-k with one seed sends the
     * same k indices from every rank, and nothing is lost: over the calls, the results plus the final residuals add up
     * to the inputs.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"top-k", "random-k"})
    void compressedErrorFeedbackLosesNothingAndEveryRankAgrees(String kind) {
        System.out.println("compressed " + kind + " seed=" + SEED);
        int n = 3;
        int count = 997;
        int calls = 3;
        Compressor compressor = kind.equals("top-k") ? Compressor.TopK.ratio(0.1) : new Compressor.RandomK(100, SEED);
        long k = compressor.kept(count);
        // inputs[call][rank]: small integers, so that every sum is exact in F32 whatever the order
        var inputs = new MemorySegment[calls][];
        for (int t = 0; t < calls; t++) {
            inputs[t] = Inputs.exact(SEED + t, n, count, DataType.F32, ReduceOp.SUM);
        }
        try (var cluster = start(n, config().build())) {
            var results = cluster.onEachRank(c -> {
                var residual = new float[count];
                var outs = new ArrayList<byte[]>();
                float[] reference = new float[count];
                float[][] refResiduals = new float[n][count];
                for (int t = 0; t < calls; t++) {
                    var data = Inputs.copy(inputs[t][c.rank()]);
                    if (t == 1) {
                        c.allReduceCompressedAsync(data, DataType.F32, count, ReduceOp.SUM, compressor,
                                MemorySegment.ofArray(residual)).await();
                    } else {
                        c.allReduceCompressed(data, DataType.F32, count, ReduceOp.SUM, compressor,
                                MemorySegment.ofArray(residual));
                    }
                    outs.add(data.toArray(ValueLayout.JAVA_BYTE));
                    long nonzero = IntStream.range(0, count).filter(i -> data.getAtIndex(F32, i) != 0).count();
                    if (kind.equals("random-k")) {
                        assertThat(nonzero).as("call %d: one seed, one set of k indices", t).isLessThanOrEqualTo(k);
                    } else {
                        Arrays.fill(reference, 0);
                        for (int r = 0; r < n; r++) {
                            topKReference(inputs[t][r], refResiduals[r], (int) k, reference);
                        }
                        for (int i = 0; i < count; i++) {
                            assertThat(data.getAtIndex(F32, i)).as("call %d element %d seed %d", t, i, SEED)
                                    .isEqualTo(reference[i]);
                        }
                    }
                }
                // conservation: sum over calls of the results + the residuals of every rank = sum of every input
                float[] residuals = new float[count * n];
                c.allGather(residual, residuals);
                for (int i = 0; i < count; i++) {
                    double lhs = 0;
                    double rhs = 0;
                    for (int t = 0; t < calls; t++) {
                        lhs += MemorySegment.ofArray(outs.get(t)).getAtIndex(F32, i);
                        for (int r = 0; r < n; r++) {
                            rhs += inputs[t][r].getAtIndex(F32, i);
                        }
                    }
                    for (int r = 0; r < n; r++) {
                        lhs += residuals[r * count + i];
                    }
                    assertThat(lhs).as("element %d seed %d", i, SEED).isEqualTo(rhs);
                }
                return outs;
            });
            identicalOnEveryRank(results);
        }
    }

    /** Compressors of another kind or another k on one rank: LAYOUT on every rank. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"k", "kind", "dense"})
    void aCompressorMismatchFailsEveryRank(String how) {
        try (var cluster = start(3, config().collectiveTimeout(Duration.ofSeconds(10)).build())) {
            var results = cluster.onEachRank(c -> {
                boolean odd = c.rank() == 1;
                var data = Inputs.zeros(64, DataType.F32);
                var residual = Inputs.zeros(64, DataType.F32);
                try {
                    if (odd && how.equals("dense")) {
                        c.allReduce(data, DataType.F32, 64, ReduceOp.SUM);
                    } else {
                        Compressor comp = !odd ? Compressor.TopK.count(4) : how.equals("k") ? Compressor.TopK.count(5)
                                : new Compressor.RandomK(4, 1);
                        c.allReduceCompressed(data, DataType.F32, 64, ReduceOp.SUM, comp, residual);
                    }
                    c.barrier();
                    return null;
                } catch (CollectiveMismatchException e) {
                    return e;
                }
            });
            results.forEach((rank, e) -> {
                assertThat(e).as("rank %d", rank).isNotNull();
                assertThat(e.field()).as("rank %d: %s", rank, e.getMessage())
                        .isEqualTo(CollectiveMismatchException.Field.LAYOUT);
            });
        }
    }

    @Test
    void callerMistakesAreRejectedBeforeAnythingIsSent() {
        try (var cluster = start(2, config().build())) {
            cluster.run(c -> {
                var data = Inputs.zeros(8, DataType.F32);
                var residual = Inputs.zeros(8, DataType.F32);
                Compressor top = Compressor.TopK.count(2);
                assertThatThrownBy(() -> c.allReduceCompressed(data, DataType.F32, 8, ReduceOp.MAX, top, residual))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SUM or AVG");
                assertThatThrownBy(() -> c.allReduceCompressed(data, DataType.I32, 8, ReduceOp.SUM, top, residual))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not I32");
                assertThatThrownBy(() -> c.allReduceCompressed(Inputs.zeros(8, DataType.F64), DataType.F64, 8,
                        ReduceOp.SUM, top, residual)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("residual holds 32 bytes but needs 64");
                assertThatThrownBy(() -> c.allReduceCompressed(data, DataType.F32, 8, ReduceOp.SUM, top, data))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlaps");
                assertThatThrownBy(() -> c.allReduce(List.of(MemorySegment.ofArray(new byte[6])), DataType.F32,
                        ReduceOp.SUM)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("not a whole number");
                assertThatThrownBy(() -> Compressor.TopK.ratio(1.5)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> new Compressor.RandomK(0, 1)).isInstanceOf(IllegalArgumentException.class);
                c.barrier(); // nothing was sent: the communicator still works
                return null;
            });
        }
    }

    /** The test's reference of top-k with error feedback: a stable sort by magnitude, then adds in rank order. */
    private static void topKReference(MemorySegment input, float[] residual, int k, float[] sum) {
        int count = residual.length;
        for (int i = 0; i < count; i++) {
            residual[i] += input.getAtIndex(F32, i);
        }
        Integer[] order = IntStream.range(0, count).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.comparingDouble((Integer i) -> -Math.abs(residual[i])));
        for (int j = 0; j < k; j++) {
            sum[order[j]] += residual[order[j]];
            residual[order[j]] = 0;
        }
    }

    private static double value(MemorySegment s, long i, DataType type) {
        return switch (type) {
            case F32 -> s.getAtIndex(F32, i);
            case F64 -> s.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), i);
            case F16 -> Float.float16ToFloat(s.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED
                    .withOrder(ByteOrder.LITTLE_ENDIAN), i));
            case BF16 -> Float.intBitsToFloat(s.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED
                    .withOrder(ByteOrder.LITTLE_ENDIAN), i) << 16);
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    private static void identicalOnEveryRank(java.util.Map<Integer, ? extends List<byte[]>> results) {
        List<byte[]> first = results.get(0);
        results.forEach((rank, outs) -> {
            for (int j = 0; j < outs.size(); j++) {
                assertThat(outs.get(j)).as("rank %d result %d equals rank 0's (seed %d)", rank, j, SEED)
                        .isEqualTo(first.get(j));
            }
        });
    }
}
