package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.Compressor;
import io.nexar.DataType;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.ProtocolException;
import io.nexar.ReduceOp;
import io.nexar.internal.protocol.SparsePayload;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Selection, error feedback and decoding of one rank's compressed allReduce, without a network. */
@Timeout(20)
class CompressedAllReduceTest {
    private static final long SEED = Long.getLong("nexar.test.seed", 0x5EED_C0DEL);
    private static final ErrorContext CONTEXT = new ErrorContext(Operation.ALL_REDUCE, 0, 2, 0, 5, -1, -1);

    @Test
    void kthLargestMatchesASort() {
        System.out.println("kthLargest seed=" + SEED);
        var random = new Random(SEED);
        for (int trial = 0; trial < 2_000; trial++) {
            int n = 1 + random.nextInt(300);
            int[] a = new int[n];
            int range = 1 + random.nextInt(trial % 3 == 0 ? 3 : 1_000_000); // many ties, or few
            for (int i = 0; i < n; i++) {
                a[i] = random.nextInt(range);
            }
            int k = 1 + random.nextInt(n);
            int[] sorted = a.clone();
            Arrays.sort(sorted);
            long[] wide = Arrays.stream(a).asLongStream().toArray();
            assertThat(CompressedAllReduce.kthLargest(wide, k)).as("trial %d", trial).isEqualTo((long) sorted[n - k]);
        }
    }

    @Test
    void magnitudeKeysOrderLikeAbsoluteValuesWithNanOnTop() {
        float[] v = {0f, -0f, 1e-30f, -1f, 2f, -3.5f, Float.MAX_VALUE, Float.NEGATIVE_INFINITY, Float.NaN};
        for (int i = 0; i + 1 < v.length; i++) {
            assertThat(CompressedAllReduce.key(v[i])).isLessThanOrEqualTo(CompressedAllReduce.key(v[i + 1]));
            assertThat(CompressedAllReduce.key((double) v[i]))
                    .isLessThanOrEqualTo(CompressedAllReduce.key((double) v[i + 1]));
        }
    }

    @Test
    void randomKChoosesDistinctIndices() {
        var chosen = CompressedAllReduce.randomK(1000, 37, new SplittableRandom(SEED));
        assertThat(chosen.cardinality()).isEqualTo(37);
        assertThat(chosen.length()).isLessThanOrEqualTo(1000);
        assertThat(CompressedAllReduce.randomK(5, 5, new SplittableRandom(SEED)).cardinality()).isEqualTo(5);
    }

    @Test
    void topKSendsTheLargestMagnitudesAndKeepsTheRest() {
        float[] data = {0.5f, -4f, 1f, 3f, -0.25f, 4f, 0f, -2f};
        float[] residual = {0, 0, 0, 0, 0, 0, 0, 1f}; // element 7 becomes -1
        var call = call(data, residual, Compressor.TopK.count(3), 1);
        call.encode(0);
        // |values|: 0.5 4 1 3 0.25 4 0 1 -> top 3 are indices 1, 5 (4) and 3 (3)
        assertThat(indices(call.payload, 3)).containsExactly(1, 3, 5);
        call.gathered.copyFrom(call.payload);
        call.finish(1, CONTEXT);
        assertThat(data).containsExactly(0, -4f, 0, 3f, 0, 4f, 0, 0);
        assertThat(residual).containsExactly(0.5f, 0, 1f, 0, -0.25f, 0, 0, -1f);
    }

    @Test
    void tiesGoToTheLowerIndex() {
        float[] data = {1, -1, 1, 1, -1};
        var call = call(data, new float[5], Compressor.TopK.count(2), 1);
        call.encode(0);
        assertThat(indices(call.payload, 2)).containsExactly(0, 1);
    }

    @Test
    void halfPrecisionKeepsItsRoundingErrorInTheResidual() {
        var buffer = MemorySegment.ofArray(new short[] {io.nexar.internal.reduce.HalfFloats.f32ToF16(1f)});
        float[] residual = {1e-4f}; // 1.0001 is not an F16: 1 is sent, 1e-4 stays
        var call = new CompressedAllReduce(buffer, DataType.F16, 1, ReduceOp.SUM, Compressor.TopK.ratio(1),
                MemorySegment.ofArray(residual), 1);
        call.encode(0);
        call.gathered.copyFrom(call.payload);
        call.finish(1, CONTEXT);
        assertThat(io.nexar.internal.reduce.HalfFloats.f16ToF32(buffer.getAtIndex(ValueLayout.JAVA_SHORT, 0)))
                .isEqualTo(1f);
        assertThat(residual[0]).isCloseTo(1e-4f, org.assertj.core.data.Offset.offset(1e-6f));
    }

    /** A malformed payload from a peer is a ProtocolException naming it; neither buffer nor residual changes. */
    @Test
    void aMalformedPayloadWritesNothing() {
        float[] data = {1, 2, 3, 4, 5, 6};
        float[] residual = new float[6];
        for (int corruption = 0; corruption < 4; corruption++) {
            float[] d = data.clone();
            float[] r = residual.clone();
            var call = call(d, r, Compressor.TopK.count(2), 2);
            call.encode(0);
            MemorySegment mine = call.gathered.asSlice(0, call.payloadBytes);
            MemorySegment peer = call.gathered.asSlice(call.payloadBytes, call.payloadBytes);
            mine.copyFrom(call.payload);
            peer.copyFrom(call.payload);
            switch (corruption) {
                case 0 -> SparsePayload.writeIndex(peer, 1, 6); // == count
                case 1 -> SparsePayload.writeIndex(peer, 1, 1L << 31); // far out of range
                case 2 -> SparsePayload.writeIndex(peer, 0, SparsePayload.index(peer, 1)); // repeated
                default -> SparsePayload.writeK(peer, 3); // k disagrees with the size
            }
            assertThatThrownBy(() -> call.finish(2, CONTEXT)).as("corruption %d", corruption)
                    .isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("malformed compressed payload from rank 1")
                    .satisfies(e -> assertThat(((ProtocolException) e).peer()).hasValue(1));
            assertThat(d).as("corruption %d", corruption).containsExactly(data);
            assertThat(r).as("corruption %d", corruption).containsExactly(residual);
        }
    }

    private static CompressedAllReduce call(float[] data, float[] residual, Compressor c, int world) {
        return new CompressedAllReduce(MemorySegment.ofArray(data), DataType.F32, data.length, ReduceOp.SUM, c,
                MemorySegment.ofArray(residual), world);
    }

    private static long[] indices(MemorySegment payload, int k) {
        long[] out = new long[k];
        for (int j = 0; j < k; j++) {
            out[j] = SparsePayload.index(payload, j);
        }
        return out;
    }
}
