package io.nexar.internal.reduce;

import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * I8 and U8 kernels. Each chunk of both operands is copied into scratch arrays, combined by a plain loop, and copied
 * out (see {@link Reducer}). SUM and PROD wrap, and are the same for signed and unsigned operands; MIN, MAX and
 * the AVG division interpret the bits as unsigned for U8.
 *
 * <p>Unsigned MIN/MAX widen with {@code & 0xFF}; signed ones compare the sign-extended values.
 */
final class ByteKernels {
    private static final ValueLayout.OfByte LAYOUT = ValueLayout.JAVA_BYTE;
    private static final int CHUNK = Scratch.CHUNK;
    private static final int BYTES = Byte.BYTES;

    private ByteKernels() {
    }

    /** out[i] = op(a[i], b[i]); AVG sums. Arguments are validated by {@link Reducer}. */
    static void reduce(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment out, long outOff,
                       long count, boolean unsigned, ReduceOp op, Scratch s) {
        byte[] x = s.bytesX();
        byte[] y = s.bytesY();
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
        byte[] x = s.bytesX();
        for (long done = 0; done < count; done += CHUNK) {
            int n = (int) Math.min(CHUNK, count - done);
            long pos = off + done * BYTES;
            MemorySegment.copy(acc, LAYOUT, pos, x, 0, n);
            if (unsigned) {
                for (int i = 0; i < n; i++) {
                    x[i] = (byte) ((x[i] & 0xFF) / divisor);
                }
            } else {
                for (int i = 0; i < n; i++) {
                    x[i] = (byte) (x[i] / divisor);
                }
            }
            MemorySegment.copy(x, 0, acc, LAYOUT, pos, n);
        }
    }

    private static void sum(byte[] x, byte[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = (byte) (x[i] + y[i]);
        }
    }

    private static void prod(byte[] x, byte[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = (byte) (x[i] * y[i]);
        }
    }

    private static void min(byte[] x, byte[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = (byte) Math.min(x[i], y[i]);
        }
    }

    private static void max(byte[] x, byte[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = (byte) Math.max(x[i], y[i]);
        }
    }

    private static void minUnsigned(byte[] x, byte[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = (byte) Math.min(x[i] & 0xFF, y[i] & 0xFF);
        }
    }

    private static void maxUnsigned(byte[] x, byte[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = (byte) Math.max(x[i] & 0xFF, y[i] & 0xFF);
        }
    }

    private static void and(byte[] x, byte[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = (byte) (x[i] & y[i]);
        }
    }

    private static void or(byte[] x, byte[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = (byte) (x[i] | y[i]);
        }
    }

    private static void xor(byte[] x, byte[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = (byte) (x[i] ^ y[i]);
        }
    }
}
