package io.nexar.internal.reduce;

/**
 * Conversions between {@code float} and the two 16-bit floating-point formats, with the bits held in a {@code short}.
 *
 * <pre>
 *   F16  (IEEE 754 binary16): s | eeeee    | mmmmmmmmmm         bias 15,  quiet-NaN bit 0x0200
 *   BF16 (bfloat16):          s | eeeeeeee | mmmmmmm            bias 127, quiet-NaN bit 0x0040
 *   F32  (binary32):          s | eeeeeeee | mmmmmmm mmmmmmmmmmmmmmmm   (BF16 is its upper half)
 * </pre>
 *
 * <p>Widening ({@link #f16ToF32}, {@link #bf16ToF32}) is exact. Narrowing ({@link #f32ToF16}, {@link #f32ToBf16})
 * rounds to nearest, ties to even, handles subnormals, and overflows to infinity. A NaN stays a NaN in both
 * directions, keeping its sign and the leading payload bits that fit, and always comes out quiet (as IEEE 754
 * converts a signalling NaN). The result never depends on whether the JIT uses the hardware conversion
 * instructions: their only difference from the Java code of {@link Float#floatToFloat16} and
 * {@link Float#float16ToFloat} is in NaN payloads and quieting, which these methods fix explicitly.
 *
 * <p>F16 is delegated to {@code Float.floatToFloat16}/{@code Float.float16ToFloat} (JDK 20+) for numbers. The
 * reference implementation's F16 converter OR-ed the rounding carry instead of adding it (1.9999 became 1.0) and its
 * BF16 path truncated on some CPUs (docs/design.md W11); the tests check both formats exhaustively or against an
 * exact reference.
 *
 * <p>All methods are pure and thread-safe.
 */
public final class HalfFloats {
    /** Quiet bit of an F16 NaN. */
    static final int F16_QUIET = 0x0200;
    /** Quiet bit of a BF16 NaN. */
    static final int BF16_QUIET = 0x0040;
    /** Quiet bit of an F32 NaN. */
    private static final int F32_QUIET = 0x0040_0000;

    private HalfFloats() {
    }

    /**
     * Widens an F16 to a {@code float}, exactly. A NaN keeps its sign and payload and is made quiet.
     *
     * @param h the F16 bits
     * @return the same value as a {@code float}
     */
    public static float f16ToF32(short h) {
        // Quieting before the call makes the result independent of the intrinsic (vcvtph2ps quiets, Java does not).
        return Float.float16ToFloat(isF16NaN(h) ? (short) (h | F16_QUIET) : h);
    }

    /**
     * Narrows a {@code float} to F16, rounding to nearest-even. Magnitudes from 65520 (F16 max 65504 plus half an
     * ulp) overflow to infinity; results below the smallest subnormal 2^-24 round to nearest-even between 0 and it.
     * A NaN gives a quiet NaN with the same sign and the leading 9 payload bits below the quiet bit.
     *
     * @param f the value
     * @return the F16 bits
     */
    public static short f32ToF16(float f) {
        if (Float.isNaN(f)) {
            int bits = Float.floatToRawIntBits(f);
            return (short) ((bits >>> 16 & 0x8000) | 0x7C00 | F16_QUIET | (bits >>> 13 & 0x01FF));
        }
        return Float.floatToFloat16(f);
    }

    /**
     * Widens a BF16 to a {@code float}, exactly (BF16 is the upper half of an F32). A NaN keeps its sign and payload
     * and is made quiet.
     *
     * @param b the BF16 bits
     * @return the same value as a {@code float}
     */
    public static float bf16ToF32(short b) {
        int bits = b << 16;
        return Float.intBitsToFloat(isBf16NaN(b) ? bits | F32_QUIET : bits);
    }

    /**
     * Narrows a {@code float} to BF16, rounding to nearest-even, subnormals included. Magnitudes from 2^128 - 2^119
     * (BF16 max plus half an ulp) round to infinity. A NaN gives a quiet NaN with the same sign and the leading 7
     * payload bits; it never turns into an infinity or a zero, whatever its payload.
     *
     * @param f the value
     * @return the BF16 bits
     */
    public static short f32ToBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7FFF_FFFF) > 0x7F80_0000) {
            return (short) (bits >>> 16 | BF16_QUIET);
        }
        // Adding 0x7FFF plus the lowest kept bit rounds to nearest, ties to even; a carry out of the significand
        // correctly bumps the exponent, up to infinity. Cannot overflow the sign: NaNs were handled above.
        return (short) ((bits + 0x7FFF + (bits >>> 16 & 1)) >>> 16);
    }

    /**
     * Tests for an F16 NaN.
     *
     * @param h the F16 bits
     * @return true if the exponent is all ones and the significand non-zero
     */
    public static boolean isF16NaN(short h) {
        return (h & 0x7FFF) > 0x7C00;
    }

    /**
     * Tests for a BF16 NaN.
     *
     * @param b the BF16 bits
     * @return true if the exponent is all ones and the significand non-zero
     */
    public static boolean isBf16NaN(short b) {
        return (b & 0x7FFF) > 0x7F80;
    }
}
