package io.nexar.internal.reduce;

import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * I32 and U32 kernels. Each chunk of both operands is copied into scratch arrays, combined by a plain loop, and copied
 * out (see {@link Reducer}). SUM and PROD wrap, and are the same for signed and unsigned operands; MIN, MAX and
 * the AVG division interpret the bits as unsigned for U32.
 *
 * <p>Unsigned MIN/MAX flip the sign bit of both operands, take the signed min/max and flip back: branch-free
 * and vectorisable, unlike {@link Integer#compareUnsigned}.
 */
final class IntKernels {
    private static final ValueLayout.OfInt LAYOUT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int CHUNK = Scratch.CHUNK;
    private static final int BYTES = Integer.BYTES;

    private IntKernels() {
    }

    /** out[i] = op(a[i], b[i]); AVG sums. Arguments are validated by {@link Reducer}. */
    static void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment out, long outOff,
                       long count, boolean unsigned, ReduceOp op, Scratch s) {
        int[] x = s.intsX();
        int[] y = s.intsY();
        for (long done = 0; done < count; done += CHUNK) {
            int n = (int) Math.min(CHUNK, count - done);
            long pos = done * BYTES;
            MemorySegment.copy(a, LAYOUT, aOff + pos, x, 0, n);
            MemorySegment.copy(b, LAYOUT, bOff + pos, y, 0, n);
            switch (op) {
                case SUM, AVG -> sum(x, y, n);
                case PROD -> prod(x, y, n);
                case MIN -> {
                    if (unsigned) {
                        minUnsigned(x, y, n);
                    } else {
                        min(x, y, n);
                    }
                }
                case MAX -> {
                    if (unsigned) {
                        maxUnsigned(x, y, n);
                    } else {
                        max(x, y, n);
                    }
                }
                case BAND -> and(x, y, n);
                case BOR -> or(x, y, n);
                case BXOR -> xor(x, y, n);
                default -> throw new AssertionError(op);
            }
            MemorySegment.copy(x, 0, out, LAYOUT, outOff + pos, n);
        }
    }

    /** acc[i] = acc[i] / divisor, truncating toward zero (signed) or dividing unsigned; {@code divisor >= 1}. */
    static void average(MemorySegment acc, long off, long count, boolean unsigned, int divisor, Scratch s) {
        int[] x = s.intsX();
        for (long done = 0; done < count; done += CHUNK) {
            int n = (int) Math.min(CHUNK, count - done);
            long pos = off + done * BYTES;
            MemorySegment.copy(acc, LAYOUT, pos, x, 0, n);
            if (unsigned) {
                for (int i = 0; i < n; i++) {
                    x[i] = Integer.divideUnsigned(x[i], divisor);
                }
            } else {
                for (int i = 0; i < n; i++) {
                    x[i] = x[i] / divisor;
                }
            }
            MemorySegment.copy(x, 0, acc, LAYOUT, pos, n);
        }
    }

    private static void sum(int[] x, int[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] + y[i];
        }
    }

    private static void prod(int[] x, int[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] * y[i];
        }
    }

    private static void min(int[] x, int[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Math.min(x[i], y[i]);
        }
    }

    private static void max(int[] x, int[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Math.max(x[i], y[i]);
        }
    }

    private static void minUnsigned(int[] x, int[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Math.min(x[i] ^ Integer.MIN_VALUE, y[i] ^ Integer.MIN_VALUE) ^ Integer.MIN_VALUE;
        }
    }

    private static void maxUnsigned(int[] x, int[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Math.max(x[i] ^ Integer.MIN_VALUE, y[i] ^ Integer.MIN_VALUE) ^ Integer.MIN_VALUE;
        }
    }

    private static void and(int[] x, int[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] & y[i];
        }
    }

    private static void or(int[] x, int[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] | y[i];
        }
    }

    private static void xor(int[] x, int[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = x[i] ^ y[i];
        }
    }
}
