package io.nexar.internal.reduce;

import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * F16 and BF16 kernels: widen both operands to F32, apply the operator in F32, round back to nearest-even.
 *
 * <p><b>Exactness.</b> One operation on two 16-bit values computed in F32 and rounded once more is the correctly
 * rounded 16-bit result, as if the format had its own arithmetic: products of 11- (or 8-) bit significands are exact
 * in F32, and for sums and quotients the double rounding is innocuous because 24 >= 2p + 2 (p = 11 for F16, 8 for
 * BF16). Each reduction step rounds to the storage format; a collective that wants one rounding for a whole fold
 * must keep an F32 accumulator itself.
 *
 * <p><b>NaN.</b> Any NaN result is stored as the canonical quiet NaN ({@link #F16_NAN}, {@link #BF16_NAN}). The
 * payload that would otherwise survive depends on operand order inside the JIT and on whether the F16 conversion
 * ran as Java code or as an F16C instruction, so canonicalising is what makes every path and CPU give the same bits.
 *
 * <p>The F16 loops call the {@code Float.float16ToFloat}/{@code floatToFloat16} intrinsics directly (so that C2 can
 * use F16C and vectorise); they equal {@link HalfFloats} for every non-NaN value, and the canonicalising pass
 * takes care of NaNs. The BF16 loops use {@link HalfFloats}, whose raw-bits conversions C2 does not vectorise.
 */
final class HalfKernels {
    /** The NaN every F16 kernel stores: positive, quiet, zero payload. */
    static final short F16_NAN = 0x7E00;
    /** The NaN every BF16 kernel stores: positive, quiet, zero payload. */
    static final short BF16_NAN = 0x7FC0;

    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int CHUNK = Scratch.CHUNK;

    private HalfKernels() {
    }

    /** out[i] = op(a[i], b[i]) for F16 ({@code bf16} false) or BF16; AVG sums. Validated by {@link Reducer}. */
    static void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment out, long outOff,
                       long count, boolean bf16, ReduceOp op, Scratch s) {
        short[] x = s.shortsX();
        short[] y = s.shortsY();
        for (long done = 0; done < count; done += CHUNK) {
            int n = (int) Math.min(CHUNK, count - done);
            long pos = done * Short.BYTES;
            MemorySegment.copy(a, I16, aOff + pos, x, 0, n);
            MemorySegment.copy(b, I16, bOff + pos, y, 0, n);
            if (bf16) {
                switch (op) {
                    case SUM, AVG -> sumBf16(x, y, n);
                    case PROD -> prodBf16(x, y, n);
                    case MIN -> minBf16(x, y, n);
                    case MAX -> maxBf16(x, y, n);
                    default -> throw new AssertionError(op);
                }
                canonicalNaNs(x, n, 0x7F80, BF16_NAN);
            } else {
                switch (op) {
                    case SUM, AVG -> sumF16(x, y, n);
                    case PROD -> prodF16(x, y, n);
                    case MIN -> minF16(x, y, n);
                    case MAX -> maxF16(x, y, n);
                    default -> throw new AssertionError(op);
                }
                canonicalNaNs(x, n, 0x7C00, F16_NAN);
            }
            MemorySegment.copy(x, 0, out, I16, outOff + pos, n);
        }
    }

    /**
     * acc[i] = acc[i] / divisor for F16 or BF16, rounded once to the 16-bit format: the quotient is computed in
     * double, narrowed to F32 (correctly rounded, 53 >= 2 x 24 + 2), then to 16 bits (innocuous, 24 >= 2p + 2). For
     * divisors up to 2^24 this equals dividing in F32.
     */
    static void average(MemorySegment acc, long off, long count, boolean bf16, int divisor, Scratch s) {
        short[] x = s.shortsX();
        double d = divisor;
        for (long done = 0; done < count; done += CHUNK) {
            int n = (int) Math.min(CHUNK, count - done);
            long pos = off + done * Short.BYTES;
            MemorySegment.copy(acc, I16, pos, x, 0, n);
            if (bf16) {
                for (int i = 0; i < n; i++) {
                    x[i] = HalfFloats.f32ToBf16((float) (HalfFloats.bf16ToF32(x[i]) / d));
                }
                canonicalNaNs(x, n, 0x7F80, BF16_NAN);
            } else {
                for (int i = 0; i < n; i++) {
                    x[i] = Float.floatToFloat16((float) (Float.float16ToFloat(x[i]) / d));
                }
                canonicalNaNs(x, n, 0x7C00, F16_NAN);
            }
            MemorySegment.copy(x, 0, acc, I16, pos, n);
        }
    }

    /** Replaces every NaN (magnitude bits above {@code infinity}) by {@code nan}. */
    private static void canonicalNaNs(short[] x, int n, int infinity, short nan) {
        for (int i = 0; i < n; i++) {
            x[i] = (x[i] & 0x7FFF) > infinity ? nan : x[i];
        }
    }

    private static void sumF16(short[] x, short[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Float.floatToFloat16(Float.float16ToFloat(x[i]) + Float.float16ToFloat(y[i]));
        }
    }

    private static void prodF16(short[] x, short[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Float.floatToFloat16(Float.float16ToFloat(x[i]) * Float.float16ToFloat(y[i]));
        }
    }

    private static void minF16(short[] x, short[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Float.floatToFloat16(Math.min(Float.float16ToFloat(x[i]), Float.float16ToFloat(y[i])));
        }
    }

    private static void maxF16(short[] x, short[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Float.floatToFloat16(Math.max(Float.float16ToFloat(x[i]), Float.float16ToFloat(y[i])));
        }
    }

    private static void sumBf16(short[] x, short[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = HalfFloats.f32ToBf16(HalfFloats.bf16ToF32(x[i]) + HalfFloats.bf16ToF32(y[i]));
        }
    }

    private static void prodBf16(short[] x, short[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = HalfFloats.f32ToBf16(HalfFloats.bf16ToF32(x[i]) * HalfFloats.bf16ToF32(y[i]));
        }
    }

    private static void minBf16(short[] x, short[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = HalfFloats.f32ToBf16(Math.min(HalfFloats.bf16ToF32(x[i]), HalfFloats.bf16ToF32(y[i])));
        }
    }

    private static void maxBf16(short[] x, short[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = HalfFloats.f32ToBf16(Math.max(HalfFloats.bf16ToF32(x[i]), HalfFloats.bf16ToF32(y[i])));
        }
    }
}
