package io.nexar.internal.reduce;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A deliberately naive scalar reference for {@link Reducer}, independent of the code under test: elements are raw
 * bits in a {@code long}; integers are computed with {@link BigInteger} and wrapped; floating-point values are decoded
 * from their bits by hand, combined exactly with {@link BigDecimal} and rounded to the format by an exact
 * nearest-even search (F16, BF16: over a table of every finite value) or by {@link BigDecimal#floatValue()} and
 * {@link BigDecimal#doubleValue()} (correctly rounded). It never calls {@link HalfFloats} or {@code Math.min}.
 *
 * <p>Every floating-point NaN result is reported as the format's canonical quiet NaN; {@link #same} treats all
 * F32/F64 NaNs as equal (their payload is unspecified) but compares F16/BF16 bits exactly.
 */
final class ReferenceReduce {
    static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** An IEEE-style binary format: exponent and stored-significand widths. */
    enum Format {
        F16(5, 10), BF16(8, 7), F32(8, 23), F64(11, 52);

        final int expBits;
        final int mantBits;
        final int bias;

        Format(int expBits, int mantBits) {
            this.expBits = expBits;
            this.mantBits = mantBits;
            this.bias = (1 << (expBits - 1)) - 1;
        }

        long signBit() {
            return 1L << (expBits + mantBits);
        }

        long expMask() {
            return ((1L << expBits) - 1) << mantBits;
        }

        long infinity() {
            return expMask();
        }

        long canonicalNaN() {
            return expMask() | 1L << (mantBits - 1);
        }
    }

    /**
     * Precision for a non-terminating quotient q = x / n, x = X 2^a (X < 2^p), n < 2^31. A rounding midpoint
     * m = M 2^b (M < 2^(p+1)) differs from q by |X 2^a - n M 2^b| / n >= 2^min(a,b) / n, that is by at least
     * 2^-(2p+33) relative to q (since b >= a - p - 33). For F64 that is about 10^-42, so 60 digits always tell q from
     * every midpoint, and a non-terminating q is never a tie.
     */
    private static final MathContext DIVISION = new MathContext(60, RoundingMode.HALF_EVEN);
    private static final BigInteger[] FIVE_POWERS = new BigInteger[1100]; // before the tables that use it
    private static final HalfTable F16_TABLE = new HalfTable(Format.F16);
    private static final HalfTable BF16_TABLE = new HalfTable(Format.BF16);

    private ReferenceReduce() {
    }

    // ------------------------------------------------------------------ elements

    static long read(MemorySegment s, long offset, long index, DataType type) {
        long at = offset + index * type.byteSize();
        return switch (type.byteSize()) {
            case 1 -> s.get(ValueLayout.JAVA_BYTE, at) & 0xFFL;
            case 2 -> s.get(I16, at) & 0xFFFFL;
            case 4 -> s.get(I32, at) & 0xFFFF_FFFFL;
            default -> s.get(I64, at);
        };
    }

    static void write(MemorySegment s, long offset, long index, DataType type, long bits) {
        long at = offset + index * type.byteSize();
        switch (type.byteSize()) {
            case 1 -> s.set(ValueLayout.JAVA_BYTE, at, (byte) bits);
            case 2 -> s.set(I16, at, (short) bits);
            case 4 -> s.set(I32, at, (int) bits);
            default -> s.set(I64, at, bits);
        }
    }

    static long mask(DataType type) {
        return type.byteSize() == 8 ? -1L : (1L << (8 * type.byteSize())) - 1;
    }

    static Format format(DataType type) {
        return switch (type) {
            case F16 -> Format.F16;
            case BF16 -> Format.BF16;
            case F32 -> Format.F32;
            case F64 -> Format.F64;
            default -> throw new IllegalArgumentException(type + " is not floating point");
        };
    }

    // ------------------------------------------------------------------ operations

    /** op(a, b) on raw bits; AVG is SUM. */
    static long combine(DataType type, ReduceOp op, long a, long b) {
        return type.isFloatingPoint() ? combineFloat(format(type), op, a, b) : combineInteger(type, op, a, b);
    }

    /** The AVG finish of one element: {@code sum / divisor}. */
    static long divide(DataType type, long sum, int divisor) {
        if (!type.isFloatingPoint()) {
            return wrap(type, toBig(type, sum).divide(BigInteger.valueOf(divisor))); // truncates toward zero
        }
        Format f = format(type);
        if (isNaN(f, sum)) {
            return f.canonicalNaN();
        }
        if (isInfinite(f, sum) || isZero(f, sum)) {
            return sum;
        }
        BigDecimal exact = exact(f, sum);
        // The quotient terminates iff the divisor without its factors 2 and 5 divides the unscaled value; then divide
        // exactly (a tie must be seen as one). Otherwise it is not a tie and 60 digits round it correctly.
        int odd = divisor;
        while (odd % 2 == 0) {
            odd /= 2;
        }
        while (odd % 5 == 0) {
            odd /= 5;
        }
        boolean terminates = exact.unscaledValue().mod(BigInteger.valueOf(odd)).signum() == 0;
        BigDecimal q = terminates ? exact.divide(BigDecimal.valueOf(divisor))
                : exact.divide(BigDecimal.valueOf(divisor), DIVISION);
        return round(f, q, isNegative(f, sum));
    }

    /** Whether an actual result matches the expected one: bit-exact, except that F32/F64 NaNs all match. */
    static boolean same(DataType type, long expected, long actual) {
        if (type == DataType.F32 || type == DataType.F64) {
            Format f = format(type);
            if (isNaN(f, expected)) {
                return isNaN(f, actual);
            }
        }
        return (expected & mask(type)) == (actual & mask(type));
    }

    private static long combineInteger(DataType type, ReduceOp op, long a, long b) {
        BigInteger x = toBig(type, a);
        BigInteger y = toBig(type, b);
        return switch (op) {
            case SUM, AVG -> wrap(type, x.add(y));
            case PROD -> wrap(type, x.multiply(y));
            case MIN -> x.compareTo(y) <= 0 ? a : b;
            case MAX -> x.compareTo(y) >= 0 ? a : b;
            case BAND -> wrap(type, x.and(y));
            case BOR -> wrap(type, x.or(y));
            case BXOR -> wrap(type, x.xor(y));
        };
    }

    static boolean isUnsigned(DataType type) {
        return type == DataType.U8 || type == DataType.U32 || type == DataType.U64;
    }

    static BigInteger toBig(DataType type, long bits) {
        int width = 8 * type.byteSize();
        BigInteger v = new BigInteger(Long.toUnsignedString(bits & mask(type)));
        if (!isUnsigned(type) && v.testBit(width - 1)) {
            v = v.subtract(BigInteger.ONE.shiftLeft(width));
        }
        return v;
    }

    static long wrap(DataType type, BigInteger v) {
        return v.mod(BigInteger.ONE.shiftLeft(8 * type.byteSize())).longValue() & mask(type);
    }

    private static long combineFloat(Format f, ReduceOp op, long a, long b) {
        if (isNaN(f, a) || isNaN(f, b)) {
            return f.canonicalNaN();
        }
        boolean negA = isNegative(f, a);
        boolean negB = isNegative(f, b);
        switch (op) {
            case MIN, MAX -> {
                if (isZero(f, a) && isZero(f, b)) {
                    return (op == ReduceOp.MIN) == negA ? a : b; // MIN picks a negative zero, MAX a positive one
                }
                int c = compare(f, a, b);
                return (op == ReduceOp.MIN ? c <= 0 : c >= 0) ? a : b;
            }
            case SUM, AVG -> {
                if (isInfinite(f, a) || isInfinite(f, b)) {
                    if (isInfinite(f, a) && isInfinite(f, b) && negA != negB) {
                        return f.canonicalNaN();
                    }
                    return isInfinite(f, a) ? a : b;
                }
                BigDecimal s = exact(f, a).add(exact(f, b));
                if (s.signum() == 0) {
                    return negA && negB ? f.signBit() : 0; // x + (-x) is +0 under round-to-nearest
                }
                return round(f, s, s.signum() < 0);
            }
            case PROD -> {
                boolean neg = negA != negB;
                if (isInfinite(f, a) || isInfinite(f, b)) {
                    if (isZero(f, a) || isZero(f, b)) {
                        return f.canonicalNaN();
                    }
                    return f.infinity() | (neg ? f.signBit() : 0);
                }
                return round(f, exact(f, a).multiply(exact(f, b)), neg);
            }
            default -> throw new IllegalArgumentException(op + " on floating point");
        }
    }

    // ------------------------------------------------------------------ decoding and rounding

    static boolean isNaN(Format f, long bits) {
        return (bits & f.expMask()) == f.expMask() && (bits & ((1L << f.mantBits) - 1)) != 0;
    }

    static boolean isInfinite(Format f, long bits) {
        return (bits & (f.expMask() | ((1L << f.mantBits) - 1))) == f.infinity();
    }

    static boolean isZero(Format f, long bits) {
        return (bits & (f.signBit() - 1)) == 0;
    }

    static boolean isNegative(Format f, long bits) {
        return (bits & f.signBit()) != 0;
    }

    /** The exact value of finite {@code bits}. */
    static BigDecimal exact(Format f, long bits) {
        long exp = (bits & f.expMask()) >>> f.mantBits;
        long mant = bits & ((1L << f.mantBits) - 1);
        long significand = exp == 0 ? mant : mant | 1L << f.mantBits;
        int scale = (int) (exp == 0 ? 1 : exp) - f.bias - f.mantBits;
        BigInteger m = BigInteger.valueOf(isNegative(f, bits) ? -significand : significand);
        // 2^-k = 5^k / 10^k, so a negative power of two is an exact BigDecimal with scale k.
        return scale >= 0 ? new BigDecimal(m.shiftLeft(scale)) : new BigDecimal(m.multiply(fivePow(-scale)), -scale);
    }

    private static synchronized BigInteger fivePow(int k) {
        if (FIVE_POWERS[k] == null) {
            FIVE_POWERS[k] = BigInteger.valueOf(5).pow(k);
        }
        return FIVE_POWERS[k];
    }

    private static int compare(Format f, long a, long b) {
        BigDecimal x = isInfinite(f, a) ? null : exact(f, a);
        BigDecimal y = isInfinite(f, b) ? null : exact(f, b);
        if (x == null || y == null) {
            int ia = x == null ? (isNegative(f, a) ? -1 : 1) : 0;
            int ib = y == null ? (isNegative(f, b) ? -1 : 1) : 0;
            return Integer.compare(ia, ib);
        }
        return x.compareTo(y);
    }

    /** Rounds {@code exact} to nearest-even in {@code f}; {@code negative} gives the sign of a zero result. */
    static long round(Format f, BigDecimal exact, boolean negative) {
        long sign = negative ? f.signBit() : 0;
        return switch (f) {
            case F16 -> F16_TABLE.round(exact.abs()) | sign;
            case BF16 -> BF16_TABLE.round(exact.abs()) | sign;
            case F32 -> Float.floatToRawIntBits(Math.abs(exact.floatValue())) & 0xFFFF_FFFFL | sign;
            case F64 -> Double.doubleToRawLongBits(Math.abs(exact.doubleValue())) | sign;
        };
    }

    /** The exact value of every non-negative finite value of a 16-bit format; the index is the bit pattern. */
    private static final class HalfTable {
        private final Format format;
        private final BigDecimal[] values;
        private final BigDecimal overflow; // max finite + half an ulp: from here on, round to infinity

        HalfTable(Format format) {
            this.format = format;
            int count = (int) format.infinity();
            values = new BigDecimal[count];
            for (int bits = 0; bits < count; bits++) {
                values[bits] = exact(format, bits);
            }
            BigDecimal max = values[count - 1];
            overflow = max.add(max.subtract(values[count - 2]).divide(BigDecimal.TWO));
        }

        long round(BigDecimal magnitude) {
            if (magnitude.compareTo(overflow) >= 0) {
                return format.infinity();
            }
            int i = Arrays.binarySearch(values, magnitude, BigDecimal::compareTo);
            if (i >= 0) {
                return i;
            }
            int below = -i - 2; // values[below] < magnitude < values[below + 1] (or the overflow threshold)
            if (below == values.length - 1) {
                return below;
            }
            BigDecimal mid = values[below].add(values[below + 1]).divide(BigDecimal.TWO);
            int c = magnitude.compareTo(mid);
            if (c != 0) {
                return c < 0 ? below : below + 1;
            }
            return (below & 1) == 0 ? below : below + 1;
        }
    }
}
