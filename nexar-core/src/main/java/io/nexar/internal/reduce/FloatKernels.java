package io.nexar.internal.reduce;

import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * F32 and F64 kernels. Each chunk of both operands is copied into scratch arrays, combined by a plain loop that
 * C2 vectorises, and copied out (see {@link Reducer} for why arrays rather than segment accesses).
 *
 * <p>MIN and MAX use {@link Math#min}/{@link Math#max}, whose semantics are exactly those of {@link ReduceOp}: a
 * NaN operand gives NaN, and -0.0 is below +0.0. The interpreter, C1 and C2 (scalar or vector) all implement that
 * contract, so results do not depend on the CPU. NaN payloads are not specified by Java and are left to the
 * hardware; which operand's payload survives may vary.
 */
final class FloatKernels {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble F64 =
            ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int CHUNK = Scratch.CHUNK;

    private FloatKernels() {
    }

    /** out[i] = op(a[i], b[i]) for F32; AVG sums. Arguments are validated by {@link Reducer}. */
    static void reduceF32(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment out, long outOff,
                          long count, ReduceOp op, Scratch s) {
        float[] x = s.floatsX();
        float[] y = s.floatsY();
        for (long done = 0; done < count; done += CHUNK) {
            int n = (int) Math.min(CHUNK, count - done);
            long pos = done * Float.BYTES;
            MemorySegment.copy(a, F32, aOff + pos, x, 0, n);
            MemorySegment.copy(b, F32, bOff + pos, y, 0, n);
            switch (op) {
                case SUM, AVG -> sum(x, y, n);
                case PROD -> prod(x, y, n);
                case MIN -> min(x, y, n);
                case MAX -> max(x, y, n);
                default -> throw new AssertionError(op);
            }
            MemorySegment.copy(x, 0, out, F32, outOff + pos, n);
        }
    }

    /** out[i] = op(a[i], b[i]) for F64; AVG sums. Arguments are validated by {@link Reducer}. */
    static void reduceF64(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment out, long outOff,
                          long count, ReduceOp op, Scratch s) {
        double[] x = s.doublesX();
        double[] y = s.doublesY();
        for (long done = 0; done < count; done += CHUNK) {
            int n = (int) Math.min(CHUNK, count - done);
            long pos = done * Double.BYTES;
            MemorySegment.copy(a, F64, aOff + pos, x, 0, n);
            MemorySegment.copy(b, F64, bOff + pos, y, 0, n);
            switch (op) {
                case SUM, AVG -> sum(x, y, n);
                case PROD -> prod(x, y, n);
                case MIN -> min(x, y, n);
                case MAX -> max(x, y, n);
                default -> throw new AssertionError(op);
            }
            MemorySegment.copy(x, 0, out, F64, outOff + pos, n);
        }
    }

    /**
     * acc[i] = acc[i] / divisor for F32, correctly rounded for every divisor: the quotient is computed in double
     * (operands exact) and rounded once more to float, which is innocuous since 53 >= 2 x 24 + 2.
     */
    static void averageF32(MemorySegment acc, long off, long count, int divisor, Scratch s) {
        float[] x = s.floatsX();
        double d = divisor;
        for (long done = 0; done < count; done += CHUNK) {
            int n = (int) Math.min(CHUNK, count - done);
            long pos = off + done * Float.BYTES;
            MemorySegment.copy(acc, F32, pos, x, 0, n);
            for (int i = 0; i < n; i++) {
                x[i] = (float) (x[i] / d);
            }
            MemorySegment.copy(x, 0, acc, F32, pos, n);
        }
    }

    /** acc[i] = acc[i] / divisor for F64 (the divisor is exact in double, so the quotient is correctly rounded). */
    static void averageF64(MemorySegment acc, long off, long count, int divisor, Scratch s) {
        double[] x = s.doublesX();
        double d = divisor;
        for (long done = 0; done < count; done += CHUNK) {
            int n = (int) Math.min(CHUNK, count - done);
            long pos = off + done * Double.BYTES;
            MemorySegment.copy(acc, F64, pos, x, 0, n);
            for (int i = 0; i < n; i++) {
                x[i] = x[i] / d;
            }
            MemorySegment.copy(x, 0, acc, F64, pos, n);
        }
    }

    private static void sum(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] + y[i];
        }
    }

    private static void prod(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] * y[i];
        }
    }

    private static void min(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Math.min(x[i], y[i]);
        }
    }

    private static void max(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Math.max(x[i], y[i]);
        }
    }

    private static void sum(double[] x, double[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] + y[i];
        }
    }

    private static void prod(double[] x, double[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] * y[i];
        }
    }

    private static void min(double[] x, double[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Math.min(x[i], y[i]);
        }
    }

    private static void max(double[] x, double[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Math.max(x[i], y[i]);
        }
    }
}
