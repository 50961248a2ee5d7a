package io.nexar.internal.reduce;

import io.nexar.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/** Seeded random elements (raw bits) rich in edge values, and the segment kinds the kernels must accept. */
final class ReduceInputs {
    /** Seed of every randomised reduce test; override with {@code -Dnexar.test.seed=...} to explore. */
    static final long SEED = Long.getLong("nexar.test.seed", 0x5EED_2025_0004L);

    private static final long[] F16_EDGES = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x7D55,
        0x7BFF, 0xFBFF, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3BFF, 0x4000, 0x7800};
    private static final long[] BF16_EDGES = {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FFF,
        0x7F7F, 0xFF7F, 0x0001, 0x8001, 0x007F, 0x0080, 0x3F80, 0xBF80, 0x3F7F, 0x4000, 0x7F00};
    private static final float[] F32_EDGES = {0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN,
        Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, 1f, -1f, 0.1f,
        1.9999f, 16777216f, 16777217f, 3e38f};
    private static final double[] F64_EDGES = {0d, -0d, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        Double.NaN, Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL,
        1d, -1d, 0.1d, 9007199254740993d, 1.7e308};
    private static final long[] INT_EDGES = {0, 1, -1, 2, -2, 3, 7, Byte.MAX_VALUE, Byte.MIN_VALUE, 0xFF, 0x80,
        Integer.MAX_VALUE, Integer.MIN_VALUE, 0xFFFF_FFFFL, 0x8000_0000L, Long.MAX_VALUE, Long.MIN_VALUE,
        0x8000_0000_0000_0001L, 0xFFFF_FFFF_FFFF_FFFEL};

    /** Where the operands live. */
    enum Kind {
        HEAP_BYTES, HEAP_LONGS, NATIVE;

        MemorySegment allocate(Arena arena, long bytes) {
            return switch (this) {
                case HEAP_BYTES -> MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
                case HEAP_LONGS -> MemorySegment.ofArray(new long[Math.toIntExact((bytes + 7) / 8)])
                        .asSlice(0, bytes);
                case NATIVE -> arena.allocate(Math.max(1, bytes), 1).asSlice(0, bytes);
            };
        }
    }

    private ReduceInputs() {
    }

    /** {@code count} elements of {@code type}: about a third edge values, the rest random in several shapes. */
    static long[] elements(DataType type, int count, SplittableRandom rnd) {
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
            out[i] = element(type, rnd);
        }
        return out;
    }

    static long element(DataType type, SplittableRandom rnd) {
        int pick = rnd.nextInt(9);
        long mask = ReferenceReduce.mask(type);
        if (pick < 3) {
            return edge(type, rnd) & mask;
        }
        if (pick < 6 || !type.isFloatingPoint()) {
            long bits = rnd.nextLong();
            return (pick == 6 ? bits >> rnd.nextInt(64) : bits) & mask; // small magnitudes too, for integers
        }
        // Floating point in a moderate range, so sums and products round (rather than one operand dominating).
        double v = (rnd.nextDouble() - 0.5) * Math.scalb(1.0, rnd.nextInt(-12, 13));
        return switch (type) {
            case F16 -> Float.floatToFloat16((float) v) & 0xFFFFL;
            case BF16 -> (Float.floatToRawIntBits((float) v) >>> 16) & 0xFFFFL;
            case F32 -> Float.floatToRawIntBits((float) v) & 0xFFFF_FFFFL;
            default -> Double.doubleToRawLongBits(v);
        };
    }

    private static long edge(DataType type, SplittableRandom rnd) {
        return switch (type) {
            case F16 -> F16_EDGES[rnd.nextInt(F16_EDGES.length)];
            case BF16 -> BF16_EDGES[rnd.nextInt(BF16_EDGES.length)];
            case F32 -> {
                int k = rnd.nextInt(F32_EDGES.length + 2);
                // two NaNs with payloads: a signalling one and a negative quiet one
                yield k == F32_EDGES.length ? 0x7F80_0001L : k > F32_EDGES.length ? 0xFFC0_1234L
                        : Float.floatToRawIntBits(F32_EDGES[k]) & 0xFFFF_FFFFL;
            }
            case F64 -> {
                int k = rnd.nextInt(F64_EDGES.length + 1);
                yield k == F64_EDGES.length ? 0x7FF0_0000_0000_0001L : Double.doubleToRawLongBits(F64_EDGES[k]);
            }
            default -> INT_EDGES[rnd.nextInt(INT_EDGES.length)];
        };
    }

    /** A segment of {@code kind} holding {@code values} after {@code offset} bytes of filler. */
    static MemorySegment segment(Arena arena, Kind kind, DataType type, long offset, long[] values, int slack) {
        MemorySegment s = kind.allocate(arena, offset + (long) values.length * type.byteSize() + slack);
        s.fill((byte) 0xA5);
        for (int i = 0; i < values.length; i++) {
            ReferenceReduce.write(s, offset, i, type, values[i]);
        }
        return s;
    }

    /** The elements of {@code s} after {@code offset}. */
    static long[] values(MemorySegment s, long offset, DataType type, int count) {
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
            out[i] = ReferenceReduce.read(s, offset, i, type);
        }
        return out;
    }
}
