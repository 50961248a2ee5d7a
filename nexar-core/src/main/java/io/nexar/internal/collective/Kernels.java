package io.nexar.internal.collective;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import io.nexar.internal.reduce.Reducer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The element operations schedules need, on little-endian elements (offsets in bytes): reduce and AVG division
 * delegate to the kernels of {@link Reducer}; operator identities (for exclusive scans) are filled here. Floating-point types follow {@link ReduceOp}: MIN/MAX propagate NaN and order -0.0 below
 * +0.0; F16 and BF16 are computed in F32 and rounded to nearest-even. Integers wrap; unsigned types compare and
 * divide unsigned.
 */
public final class Kernels {
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble F64 =
            ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Kernels() {
    }

    /**
     * Checks that {@code op} applies to {@code type}.
     *
     * @throws IllegalArgumentException for a bitwise operator on a floating-point type
     */
    public static void check(DataType type, ReduceOp op) {
        Reducer.check(type, op);
    }

    /** acc[i] = acc[i] op in[i] for {@code count} elements. AVG sums (the owner divides at the end). */
    public static void reduce(MemorySegment acc, long accOff, MemorySegment in, long inOff, long count, DataType type,
                              ReduceOp op) {
        Reducer.reduce(acc, accOff, in, inOff, count, type, op == ReduceOp.AVG ? ReduceOp.SUM : op);
    }

    /** out[i] = a[i] op b[i] for {@code count} elements; {@code out} may be {@code a} or {@code b}. AVG sums. */
    public static void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment out, long outOff,
                              long count, DataType type, ReduceOp op) {
        Reducer.reduce(a, aOff, b, bOff, out, outOff, count, type, op == ReduceOp.AVG ? ReduceOp.SUM : op);
    }

    /** acc[i] = acc[i] / divisor (AVG); integers truncate toward zero (unsigned types divide unsigned). */
    public static void finishAverage(MemorySegment acc, long accOff, long count, DataType type, long divisor) {
        Reducer.finishAverage(acc, accOff, count, type, Math.toIntExact(divisor));
    }

    /** Fills {@code count} elements with the identity of {@code op} (AVG: that of SUM). */
    public static void fillIdentity(MemorySegment dst, long off, long count, DataType type, ReduceOp op) {
        int w = type.byteSize();
        for (long i = 0; i < count; i++) {
            long a = off + i * w;
            switch (type) {
                case F32 -> dst.set(F32, a, (float) fpIdentity(op));
                case F64 -> dst.set(F64, a, fpIdentity(op));
                case F16 -> dst.set(I16, a, Float.floatToFloat16((float) fpIdentity(op)));
                case BF16 -> dst.set(I16, a, toBf16((float) fpIdentity(op)));
                default -> write(dst, a, type, intIdentity(op, type));
            }
        }
    }

    private static double fpIdentity(ReduceOp op) {
        return switch (op) {
            case PROD -> 1.0;
            case MIN -> Double.POSITIVE_INFINITY;
            case MAX -> Double.NEGATIVE_INFINITY;
            default -> 0.0;
        };
    }

    private static long intIdentity(ReduceOp op, DataType type) {
        boolean unsigned = type == DataType.U8 || type == DataType.U32 || type == DataType.U64;
        int bits = type.byteSize() * 8;
        long signedMax = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
        return switch (op) {
            case PROD -> 1;
            case MIN -> unsigned ? -1L : signedMax;       // all ones is the unsigned maximum once truncated
            case MAX -> unsigned ? 0 : -signedMax - 1;
            case BAND -> -1L;
            default -> 0;
        };
    }

    /** An integer element widened to a long: sign-extended for signed types, zero-extended for unsigned ones. */
    static long read(MemorySegment s, long off, DataType type) {
        return switch (type) {
            case I8 -> s.get(ValueLayout.JAVA_BYTE, off);
            case U8 -> s.get(ValueLayout.JAVA_BYTE, off) & 0xFFL;
            case I32 -> s.get(I32, off);
            case U32 -> s.get(I32, off) & 0xFFFF_FFFFL;
            case I64, U64 -> s.get(I64, off);
            default -> throw new IllegalArgumentException(type + " is not an integer type");
        };
    }

    static void write(MemorySegment s, long off, DataType type, long v) {
        switch (type) {
            case I8, U8 -> s.set(ValueLayout.JAVA_BYTE, off, (byte) v);
            case I32, U32 -> s.set(I32, off, (int) v);
            case I64, U64 -> s.set(I64, off, v);
            default -> throw new IllegalArgumentException(type + " is not an integer type");
        }
    }

    static float fromBf16(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    static short toBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            return (short) ((bits >>> 16) | 0x40);
        }
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }
}
