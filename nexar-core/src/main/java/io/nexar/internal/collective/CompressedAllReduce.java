package io.nexar.internal.collective;

import io.nexar.Compressor;
import io.nexar.DataType;
import io.nexar.ErrorContext;
import io.nexar.ProtocolException;
import io.nexar.ReduceOp;
import io.nexar.internal.protocol.SparsePayload;
import io.nexar.internal.reduce.HalfFloats;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;

/**
 * One rank's part of one compressed allReduce (docs/collectives.md, "Compressed allReduce"), around an allgather of
 * fixed-size {@link SparsePayload}s that {@link Collectives} runs:
 *
 * <ol>
 *   <li>{@link #CompressedAllReduce}: work = residual + buffer, in the accumulation type (F64 for F64, F32 for the
 *       others), in a temporary array: the caller's residual and buffer stay as they are until the end;</li>
 *   <li>{@link #encode}: selects k indices (top-k by magnitude in linear time, or random-k), writes them and their
 *       values, rounded to the call's type, into this rank's payload, and subtracts what was sent from work;</li>
 *   <li>the allgather gives every rank every rank's payload;</li>
 *   <li>{@link #finish}: checks every payload ({@link SparsePayload#problem}) before using any, then stores work as
 *       the new residual and writes the sum (or average) into the buffer, adding the payloads in rank order. Every
 *       rank adds the same values in the same order, so every rank gets bit-identical results (the seed's ring
 *       reduced in a different order on each rank, docs/design.md W13).</li>
 * </ol>
 *
 * <p>If the operation fails before {@link #finish}, neither the buffer nor the residual has changed. Not thread-safe:
 * one call, driven by one thread at a time.
 */
final class CompressedAllReduce {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble F64 =
            ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Largest count: work arrays are Java arrays. */
    static final long MAX_COUNT = Integer.MAX_VALUE - 8;

    private final DataType type;
    private final ReduceOp op;
    private final int count;
    private final int k;
    private final Compressor compressor;
    private final MemorySegment buffer;
    private final MemorySegment residual;
    /** residual + input, then minus what was sent; the accumulator in {@link #finish}. One of the two is null. */
    private final float[] workF;
    private final double[] workD;
    /** This rank's payload, then every rank's, in rank order. */
    final MemorySegment payload;
    final MemorySegment gathered;
    final long payloadBytes;

    /**
     * Reads residual + buffer into a work array.
     *
     * @param residual {@code count} elements of the accumulation type ({@link #residualType})
     */
    CompressedAllReduce(MemorySegment buffer, DataType type, long count, ReduceOp op, Compressor compressor,
                        MemorySegment residual, int worldSize) {
        this.type = type;
        this.op = op;
        this.count = Math.toIntExact(count);
        this.k = Math.toIntExact(compressor.kept(count));
        this.compressor = compressor;
        this.buffer = buffer;
        this.residual = residual;
        int w = type.byteSize();
        this.payloadBytes = SparsePayload.bytes(k, w);
        this.payload = Segments.heapBytes(payloadBytes); // a byte buffer views it: sent where it lies
        this.gathered = Segments.heapBytes(Math.multiplyExact(payloadBytes, worldSize));
        if (type == DataType.F64) {
            workF = null;
            workD = new double[this.count];
            for (int i = 0; i < this.count; i++) {
                workD[i] = residual.getAtIndex(F64, i) + buffer.getAtIndex(F64, i);
            }
        } else {
            workD = null;
            workF = new float[this.count];
            for (int i = 0; i < this.count; i++) {
                workF[i] = residual.getAtIndex(F32, i) + read(buffer, i);
            }
        }
    }

    /** The residual's element type for a buffer of {@code type}: F64 for F64, F32 for F32, F16 and BF16. */
    static DataType residualType(DataType type) {
        return type == DataType.F64 ? DataType.F64 : DataType.F32;
    }

    /** The wire layout code of this call (compressor kind and k), for the fingerprint. */
    int layout() {
        return Fingerprint.compressedLayout(compressor instanceof Compressor.TopK, k);
    }

    /** Elements this rank sends. */
    int k() {
        return k;
    }

    /**
     * Selects this call's indices and writes this rank's payload.
     *
     * @param seq the operation's sequence number on the communicator (the same on every rank): random-k's stream
     */
    void encode(long seq) {
        int w = type.byteSize();
        SparsePayload.writeK(payload, k);
        int j = 0;
        if (k == count) {
            for (int i = 0; i < count; i++) {
                put(j++, i, w);
            }
        } else if (compressor instanceof Compressor.RandomK r) {
            BitSet chosen = randomK(count, k, new SplittableRandom(mix(r.seed() ^ mix(seq))));
            for (int i = chosen.nextSetBit(0); i >= 0; i = chosen.nextSetBit(i + 1)) {
                put(j++, i, w);
            }
        } else {
            long[] keys = magnitudes();
            long threshold = kthLargest(keys.clone(), k);
            long above = 0;
            for (long key : keys) {
                above += key > threshold ? 1 : 0;
            }
            long ties = k - above;
            for (int i = 0; i < count && j < k; i++) {
                if (keys[i] > threshold || keys[i] == threshold && ties-- > 0) {
                    put(j++, i, w);
                }
            }
        }
        if (j != k) {
            throw new IllegalStateException("selected " + j + " elements, not " + k); // a bug, never the caller's
        }
    }

    /** Writes element {@code i} as payload entry {@code j} and takes what was sent out of work. */
    private void put(int j, int i, int w) {
        SparsePayload.writeIndex(payload, j, i);
        long at = SparsePayload.valueOffset(k, j, w);
        switch (type) {
            case F64 -> {
                payload.set(F64, at, workD[i]);
                workD[i] = 0;
            }
            case F32 -> {
                payload.set(F32, at, workF[i]);
                workF[i] = 0;
            }
            case F16, BF16 -> {
                short h = type == DataType.F16 ? HalfFloats.f32ToF16(workF[i]) : HalfFloats.f32ToBf16(workF[i]);
                payload.set(I16, at, h);
                float rest = workF[i] - half(h);
                workF[i] = Float.isFinite(rest) ? rest : 0; // the rounding error stays in the residual
            }
            default -> throw new IllegalStateException("type " + type);
        }
    }

    /**
     * Checks every rank's payload, then stores the new residual and writes the reduction into the buffer.
     *
     * @param context the operation's context; a malformed payload's exception names its rank as the peer
     * @throws ProtocolException if a payload is malformed (nothing was written then)
     */
    void finish(int worldSize, ErrorContext context) {
        int w = type.byteSize();
        for (int r = 0; r < worldSize; r++) {
            String problem = SparsePayload.problem(block(r), count, k, w);
            if (problem != null) {
                throw new ProtocolException(context.withPeer(r), "received a malformed compressed payload from rank "
                        + r + ": " + problem);
            }
        }
        if (workD != null) {
            MemorySegment.copy(workD, 0, residual, F64, 0, count);
            Arrays.fill(workD, 0);
            for (int r = 0; r < worldSize; r++) {
                MemorySegment b = block(r);
                for (int j = 0; j < k; j++) {
                    workD[(int) SparsePayload.index(b, j)] += b.get(F64, SparsePayload.valueOffset(k, j, w));
                }
            }
            double divisor = op == ReduceOp.AVG ? worldSize : 1;
            for (int i = 0; i < count; i++) {
                buffer.setAtIndex(F64, i, divisor == 1 ? workD[i] : workD[i] / divisor);
            }
        } else {
            MemorySegment.copy(workF, 0, residual, F32, 0, count);
            Arrays.fill(workF, 0);
            for (int r = 0; r < worldSize; r++) {
                MemorySegment b = block(r);
                for (int j = 0; j < k; j++) {
                    long at = SparsePayload.valueOffset(k, j, w);
                    float v = type == DataType.F32 ? b.get(F32, at) : half(b.get(I16, at));
                    workF[(int) SparsePayload.index(b, j)] += v;
                }
            }
            float divisor = op == ReduceOp.AVG ? worldSize : 1;
            for (int i = 0; i < count; i++) {
                write(buffer, i, divisor == 1 ? workF[i] : workF[i] / divisor);
            }
        }
    }

    private MemorySegment block(int r) {
        return gathered.asSlice(r * payloadBytes, payloadBytes);
    }

    private float read(MemorySegment s, long i) {
        return switch (type) {
            case F32 -> s.getAtIndex(F32, i);
            case F16, BF16 -> half(s.getAtIndex(I16, i));
            default -> throw new IllegalStateException("type " + type);
        };
    }

    private void write(MemorySegment s, long i, float v) {
        switch (type) {
            case F32 -> s.setAtIndex(F32, i, v);
            case F16 -> s.setAtIndex(I16, i, HalfFloats.f32ToF16(v));
            case BF16 -> s.setAtIndex(I16, i, HalfFloats.f32ToBf16(v));
            default -> throw new IllegalStateException("type " + type);
        }
    }

    private float half(short h) {
        return type == DataType.F16 ? HalfFloats.f16ToF32(h) : HalfFloats.bf16ToF32(h);
    }

    // ------------------------------------------------------------------------------------------------ selection

    /** Magnitude as an int that orders like |x|, NaN above infinity (floatToIntBits makes every NaN the same). */
    static int key(float x) {
        return Float.floatToIntBits(Math.abs(x));
    }

    /** Magnitude as a long that orders like |x|, NaN above infinity. */
    static long key(double x) {
        return Double.doubleToLongBits(Math.abs(x));
    }

    /** The magnitude key of every element of the working copy, floats widened to long. */
    private long[] magnitudes() {
        long[] keys = new long[count];
        for (int i = 0; i < count; i++) {
            keys[i] = workD != null ? key(workD[i]) : key(workF[i]);
        }
        return keys;
    }

    /**
     * The k-th largest of {@code a} (1 <= k <= a.length), in expected linear time: quickselect with a three-way
     * partition (runs of equal keys, such as zeros, cost one pass) and pivots from a fixed-seed generator. Reorders
     * {@code a}.
     */
    static long kthLargest(long[] a, int k) {
        int target = a.length - k;
        int lo = 0;
        int hi = a.length - 1;
        var random = new SplittableRandom(0x5EEDL);
        while (lo < hi) {
            long pivot = a[lo + random.nextInt(hi - lo + 1)];
            int lt = lo;
            int i = lo;
            int gt = hi;
            while (i <= gt) {
                long x = a[i];
                if (x < pivot) {
                    a[i++] = a[lt];
                    a[lt++] = x;
                } else if (x > pivot) {
                    a[i] = a[gt];
                    a[gt--] = x;
                } else {
                    i++;
                }
            }
            if (target < lt) {
                hi = lt - 1;
            } else if (target > gt) {
                lo = gt + 1;
            } else {
                return pivot;
            }
        }
        return a[target];
    }

    /** {@code k} distinct indices of [0, count), uniformly (Floyd's algorithm: k draws, no shuffle of count). */
    static BitSet randomK(int count, int k, SplittableRandom random) {
        var chosen = new BitSet(count);
        for (int j = count - k; j < count; j++) {
            int t = random.nextInt(j + 1);
            chosen.set(chosen.get(t) ? j : t);
        }
        return chosen;
    }

    private static long mix(long z) { // SplitMix64's finaliser
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
