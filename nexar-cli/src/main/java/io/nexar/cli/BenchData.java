package io.nexar.cli;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Input patterns and the reference that {@code nexar bench --check} compares results with. Element {@code i} of rank
 * {@code r}'s input is a small integer {@link #value(int, long)} that every rank can compute for every other rank, so
 * each rank checks its own output without extra communication. The values are chosen so that every sum, product,
 * minimum and maximum is exact in every type (also F16 and BF16, for up to 15 ranks of products and far more of
 * sums): integer results must match exactly, floating-point ones can differ only by the rounding of {@code avg}'s
 * division.
 */
final class BenchData {
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble F64 =
            ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final DataType type;
    private final ReduceOp redop;
    private final boolean reduces;
    private final boolean unsigned;

    /**
     * @param reduces whether the values feed a reduction (then they are chosen for {@code redop}), or are moved only
     *                (then they are more distinct, so a misplaced block shows)
     */
    BenchData(DataType type, ReduceOp redop, boolean reduces) {
        this.type = type;
        this.redop = redop;
        this.reduces = reduces;
        this.unsigned = type == DataType.U8 || type == DataType.U32 || type == DataType.U64;
    }

    /** The largest error {@code --check} accepts for this type: 0 for integers, a relative bound for floats. */
    static double tolerance(DataType type) {
        return switch (type) {
            case F64 -> 1e-12;
            case F32 -> 1e-6;
            case F16, BF16 -> 1e-2;
            default -> 0;
        };
    }

    /** Element {@code i} of rank {@code rank}'s input. */
    long value(int rank, long i) {
        if (!reduces) {
            long v = (rank * 131L + i * 7) % 251;
            return unsigned ? v : v - 125;
        }
        return switch (redop) {
            case BAND, BOR, BXOR -> (rank * 37L + i * 11) & 0x7F;
            case PROD -> unsigned ? 1 + (rank + i) % 2 : new long[] {1, 2, -1}[(int) ((rank + i) % 3)];
            default -> unsigned ? (rank * 7L + i * 13) % 9 : (rank * 7L + i * 13) % 9 - 4;
        };
    }

    /** Writes {@link #value} of {@code rank} for elements {@code [0, count)} of {@code seg}. */
    void fill(MemorySegment seg, int rank, long count) {
        for (long i = 0; i < count; i++) {
            put(seg, i, value(rank, i));
        }
    }

    /** The reference result of reducing element {@code i} of every rank's input, in this type. */
    double expected(int worldSize, long i) {
        if (type.isFloatingPoint()) {
            double acc = value(0, i);
            for (int r = 1; r < worldSize; r++) {
                double v = value(r, i);
                acc = switch (redop) {
                    case SUM, AVG -> acc + v;
                    case PROD -> acc * v;
                    case MIN -> Math.min(acc, v);
                    case MAX -> Math.max(acc, v);
                    default -> throw new IllegalArgumentException(redop + " on " + type);
                };
            }
            return round(redop == ReduceOp.AVG ? acc / worldSize : acc);
        }
        long acc = value(0, i);
        for (int r = 1; r < worldSize; r++) {
            long v = value(r, i);
            acc = narrow(switch (redop) {
                case SUM, AVG -> acc + v;
                case PROD -> acc * v;
                case MIN -> unsigned ? (Long.compareUnsigned(acc, v) <= 0 ? acc : v) : Math.min(acc, v);
                case MAX -> unsigned ? (Long.compareUnsigned(acc, v) >= 0 ? acc : v) : Math.max(acc, v);
                case BAND -> acc & v;
                case BOR -> acc | v;
                case BXOR -> acc ^ v;
            });
        }
        if (redop == ReduceOp.AVG) {
            acc = narrow(unsigned ? Long.divideUnsigned(acc, worldSize) : acc / worldSize);
        }
        return unsigned && type == DataType.U64 ? unsignedToDouble(acc) : acc;
    }

    /** The value moved, not reduced: element {@code i} of rank {@code rank}'s input, as read back. */
    double moved(int rank, long i) {
        long v = value(rank, i);
        return type.isFloatingPoint() ? round(v) : narrow(v);
    }

    /**
     * The error of element {@code i} of {@code seg} against {@code want}: {@code |got - want| / max(1, |want|)}, and
     * infinity for a NaN.
     */
    double error(MemorySegment seg, long i, double want) {
        double got = get(seg, i);
        if (Double.isNaN(got)) {
            return Double.POSITIVE_INFINITY;
        }
        return Math.abs(got - want) / Math.max(1, Math.abs(want));
    }

    /** Reads element {@code i} as a double (integers exactly, up to 2^53). */
    double get(MemorySegment seg, long i) {
        return switch (type) {
            case F16 -> Float.float16ToFloat(seg.get(I16, i * 2));
            case BF16 -> Float.intBitsToFloat((seg.get(I16, i * 2) & 0xFFFF) << 16);
            case F32 -> seg.get(F32, i * 4);
            case F64 -> seg.get(F64, i * 8);
            case I8 -> seg.get(ValueLayout.JAVA_BYTE, i);
            case U8 -> seg.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
            case I32 -> seg.get(I32, i * 4);
            case U32 -> seg.get(I32, i * 4) & 0xFFFF_FFFFL;
            case I64 -> seg.get(I64, i * 8);
            case U64 -> unsignedToDouble(seg.get(I64, i * 8));
        };
    }

    private void put(MemorySegment seg, long i, long v) {
        switch (type) {
            case F16 -> seg.set(I16, i * 2, Float.floatToFloat16(v));
            case BF16 -> seg.set(I16, i * 2, (short) (Float.floatToRawIntBits(v) >>> 16));
            case F32 -> seg.set(F32, i * 4, v);
            case F64 -> seg.set(F64, i * 8, v);
            case I8, U8 -> seg.set(ValueLayout.JAVA_BYTE, i, (byte) v);
            case I32, U32 -> seg.set(I32, i * 4, (int) v);
            case I64, U64 -> seg.set(I64, i * 8, v);
        }
    }

    /** Rounds to the nearest value of this floating-point type (exact for the small integers used here). */
    private double round(double x) {
        return switch (type) {
            case F16 -> Float.float16ToFloat(Float.floatToFloat16((float) x));
            case BF16 -> {
                int bits = Float.floatToRawIntBits((float) x);
                bits += 0x7FFF + ((bits >>> 16) & 1);                          // round to nearest even
                yield Float.intBitsToFloat(bits & 0xFFFF_0000);
            }
            case F32 -> (float) x;
            default -> x;
        };
    }

    /** Wraps to this integer type's width and signedness. */
    private long narrow(long v) {
        return switch (type) {
            case I8 -> (byte) v;
            case U8 -> v & 0xFF;
            case I32 -> (int) v;
            case U32 -> v & 0xFFFF_FFFFL;
            default -> v;
        };
    }

    private static double unsignedToDouble(long v) {
        return v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
    }
}
