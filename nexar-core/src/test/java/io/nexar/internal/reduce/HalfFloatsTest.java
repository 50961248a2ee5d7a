package io.nexar.internal.reduce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.nexar.internal.reduce.ReferenceReduce.Format;
import java.math.BigDecimal;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link HalfFloats}: exhaustive over every F16 and BF16 bit pattern, every rounding midpoint and its neighbours,
 * hand-picked cases, and properties against the JDK (F16) and an exact BigDecimal reference (both formats). The
 * sweeps are deterministic; jqwik prints the seed of the properties.
 */
class HalfFloatsTest {

    private static String hex(int bits) {
        return String.format("0x%04x", bits & 0xFFFF);
    }

    /** The exact nearest-even result, from the BigDecimal reference. */
    private static int reference(Format format, float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isInfinite(f)) {
            return (int) (format.infinity() | (bits < 0 ? format.signBit() : 0));
        }
        return (int) ReferenceReduce.round(format, new BigDecimal(f), bits < 0);
    }

    @Test
    @Timeout(30)
    void shouldRoundTripEveryF16BitPattern() {
        for (int i = 0; i < 0x1_0000; i++) {
            short h = (short) i;
            float f = HalfFloats.f16ToF32(h);
            boolean nan = (i & 0x7C00) == 0x7C00 && (i & 0x03FF) != 0;
            assertEquals(nan, HalfFloats.isF16NaN(h), hex(i));
            if (nan) {
                int fb = Float.floatToRawIntBits(f);
                assertThat(Float.isNaN(f)).as(hex(i)).isTrue();
                assertThat(fb & 0x0040_0000).as("quiet " + hex(i)).isNotZero();
                assertThat(fb >>> 31).as("sign " + hex(i)).isEqualTo(i >>> 15);
                assertThat(fb >>> 13 & 0x3FF).as("payload " + hex(i)).isEqualTo(i & 0x3FF | 0x200);
                assertThat(HalfFloats.f32ToF16(f) & 0xFFFF).as("round trip " + hex(i)).isEqualTo(i | 0x200);
            } else {
                assertThat(Float.floatToRawIntBits(f)).as(hex(i))
                        .isEqualTo(Float.floatToRawIntBits(Float.float16ToFloat(h)));
                if (!Float.isInfinite(f)) {
                    assertThat(new BigDecimal(f).compareTo(ReferenceReduce.exact(Format.F16, i))).as(hex(i)).isZero();
                }
                assertThat(HalfFloats.f32ToF16(f) & 0xFFFF).as("round trip " + hex(i)).isEqualTo(i);
            }
        }
    }

    @Test
    @Timeout(30)
    void shouldRoundTripEveryBf16BitPattern() {
        for (int i = 0; i < 0x1_0000; i++) {
            short b = (short) i;
            float f = HalfFloats.bf16ToF32(b);
            boolean nan = (i & 0x7F80) == 0x7F80 && (i & 0x007F) != 0;
            assertEquals(nan, HalfFloats.isBf16NaN(b), hex(i));
            if (nan) {
                assertThat(Float.isNaN(f)).as(hex(i)).isTrue();
                assertThat(Float.floatToRawIntBits(f)).as(hex(i)).isEqualTo(i << 16 | 0x0040_0000);
                assertThat(HalfFloats.f32ToBf16(f) & 0xFFFF).as("round trip " + hex(i)).isEqualTo(i | 0x0040);
            } else {
                assertThat(Float.floatToRawIntBits(f)).as(hex(i)).isEqualTo(i << 16);
                assertThat(HalfFloats.f32ToBf16(f) & 0xFFFF).as("round trip " + hex(i)).isEqualTo(i);
            }
        }
    }

    /**
     * Every midpoint between adjacent finite F16 values (and between the maximum and the overflow threshold) rounds
     * to the even neighbour; one float ulp either side rounds down or up. Both signs.
     */
    @Test
    @Timeout(30)
    void shouldRoundEveryF16MidpointToEven() {
        for (int i = 0; i < 0x7C00; i++) {
            float lo = Float.float16ToFloat((short) i);
            float hi = i == 0x7BFF ? 65536f : Float.float16ToFloat((short) (i + 1)); // 65536: where 0x7C00 would be
            float mid = (lo + hi) / 2; // exact: 12 significant bits
            int even = (i & 1) == 0 ? i : i + 1;
            for (int sign : new int[] {0, 0x8000}) {
                float s = sign == 0 ? 1f : -1f;
                check(Format.F16, s * mid, even | sign);
                check(Format.F16, s * Math.nextDown(mid), i | sign);
                check(Format.F16, s * Math.nextUp(mid), i + 1 | sign);
            }
        }
    }

    /** As for F16: every BF16 midpoint is the float {@code (b << 16) | 0x8000}. */
    @Test
    @Timeout(30)
    void shouldRoundEveryBf16MidpointToEven() {
        for (int i = 0; i < 0x7F80; i++) {
            int even = (i & 1) == 0 ? i : i + 1;
            for (int sign : new int[] {0, 0x8000}) {
                int base = (i | sign) << 16;
                check(Format.BF16, Float.intBitsToFloat(base | 0x8000), even | sign);
                check(Format.BF16, Float.intBitsToFloat(base | 0x7FFF), i | sign);
                check(Format.BF16, Float.intBitsToFloat(base | 0x8001), i + 1 | sign);
                check(Format.BF16, Float.intBitsToFloat(base | 0x0001), i | sign);
                check(Format.BF16, Float.intBitsToFloat(base | 0xFFFF), i + 1 | sign);
            }
        }
    }

    /** 2^16 + 1 floats spread over every exponent, compared with the JDK and the reference. */
    @Test
    @Timeout(30)
    void shouldMatchReferenceAcrossAllFloatExponents() {
        for (long bits = 0; bits <= 0xFFFF_FFFFL; bits += 65521) { // a prime stride walks through all low bits
            float f = Float.intBitsToFloat((int) bits);
            if (!Float.isNaN(f)) {
                assertThat(HalfFloats.f32ToF16(f)).as(Long.toHexString(bits)).isEqualTo(Float.floatToFloat16(f));
                check(Format.F16, f, reference(Format.F16, f));
                check(Format.BF16, f, reference(Format.BF16, f));
            }
        }
    }

    private static void check(Format format, float f, int expected) {
        int actual = (format == Format.F16 ? HalfFloats.f32ToF16(f) : HalfFloats.f32ToBf16(f)) & 0xFFFF;
        if (actual != expected) {
            fail(format + " of " + f + " (0x" + Integer.toHexString(Float.floatToRawIntBits(f)) + "): expected "
                    + hex(expected) + " but was " + hex(actual));
        }
    }

    static Stream<Arguments> f16Cases() {
        return Stream.of(
                Arguments.of(1.9999f, 0x4000), // W11: the reference OR-ed the carry and produced 1.0 (0x3C00)
                Arguments.of(1.0f + 0x1p-11f, 0x3C00), Arguments.of(1.0f + 3 * 0x1p-11f, 0x3C02),
                Arguments.of(65504f, 0x7BFF), Arguments.of(65519.996f, 0x7BFF), Arguments.of(65520f, 0x7C00),
                Arguments.of(-65520f, 0xFC00), Arguments.of(Float.MAX_VALUE, 0x7C00),
                Arguments.of(0x1p-25f, 0x0000), Arguments.of(Math.nextUp(0x1p-25f), 0x0001),
                Arguments.of(3 * 0x1p-25f, 0x0002), Arguments.of(-0x1p-25f, 0x8000), Arguments.of(0x1p-14f, 0x0400),
                Arguments.of(0x1p-14f - 0x1p-25f, 0x0400), // midway above the largest subnormal (odd): up to the smallest normal
                Arguments.of(-0f, 0x8000), Arguments.of(Float.POSITIVE_INFINITY, 0x7C00),
                Arguments.of(Float.NaN, 0x7E00), Arguments.of(Float.intBitsToFloat(0x7F80_0001), 0x7E00),
                Arguments.of(Float.intBitsToFloat(0xFFC0_2000), 0xFE01),
                Arguments.of(Float.intBitsToFloat(0x7FFF_FFFF), 0x7FFF));
    }

    @ParameterizedTest(name = "{0} -> F16 {1}")
    @MethodSource("f16Cases")
    @Timeout(10)
    void shouldConvertHandPickedF16Cases(float f, int expected) {
        check(Format.F16, f, expected);
    }

    static Stream<Arguments> bf16Cases() {
        return Stream.of(
                Arguments.of(0x3F80_8000, 0x3F80), // 1 + 2^-8: halfway, even stays down
                Arguments.of(0x3F81_8000, 0x3F82), // halfway above an odd value rounds up
                Arguments.of(0x3F80_8001, 0x3F81), Arguments.of(0x3F80_7FFF, 0x3F80),
                Arguments.of(0xBF80_8000, 0xBF80), Arguments.of(0xBF81_8000, 0xBF82),
                Arguments.of(0x7F7F_8000, 0x7F80), // halfway between the max (odd) and infinity: overflows
                Arguments.of(0x7F7F_7FFF, 0x7F7F), Arguments.of(0x7F7F_FFFF, 0x7F80), Arguments.of(0xFF7F_8000, 0xFF80),
                Arguments.of(0x0000_8000, 0x0000), Arguments.of(0x0001_8000, 0x0002), Arguments.of(0x8000_8000, 0x8000),
                Arguments.of(0x007F_FFFF, 0x0080), // the largest subnormal float rounds to the smallest normal
                Arguments.of(0x7F80_0000, 0x7F80), Arguments.of(0xFF80_0000, 0xFF80),
                Arguments.of(0x7FC0_0000, 0x7FC0), // quiet NaN
                Arguments.of(0x7F80_0001, 0x7FC0), // signalling NaN, payload only in the low half: not infinity
                Arguments.of(0xFF80_0001, 0xFFC0), Arguments.of(0x7FFF_FFFF, 0x7FFF),
                Arguments.of(0xFFFF_FFFF, 0xFFFF)); // large payload: no carry into the sign (reference bug: -0.0)
    }

    @ParameterizedTest(name = "0x{0} -> BF16 {1}")
    @MethodSource("bf16Cases")
    @Timeout(10)
    void shouldConvertHandPickedBf16Cases(int floatBits, int expected) {
        check(Format.BF16, Float.intBitsToFloat(floatBits), expected);
        if (!Float.isNaN(Float.intBitsToFloat(floatBits))) {
            assertThat(reference(Format.BF16, Float.intBitsToFloat(floatBits))).as("reference").isEqualTo(expected);
        }
    }

    @Property(tries = 1000)
    void bf16MatchesExactReference(@ForAll int bits) {
        float f = Float.intBitsToFloat(bits);
        if (Float.isNaN(f)) {
            assertThat(HalfFloats.isBf16NaN(HalfFloats.f32ToBf16(f))).isTrue();
            assertThat(HalfFloats.f32ToBf16(f) & HalfFloats.BF16_QUIET).isNotZero();
            assertThat(HalfFloats.f32ToBf16(f) & 0x8000).isEqualTo(bits >>> 16 & 0x8000);
        } else {
            check(Format.BF16, f, reference(Format.BF16, f));
        }
    }

    @Property(tries = 1000)
    void bf16MatchesDoubleReference(@ForAll double d) {
        // A second, simpler oracle: scale into [1, 2), round the 7 fraction bits with Math.rint (ties to even).
        float f = (float) d;
        if (Float.isNaN(f) || Float.isInfinite(f) || f == 0 || Math.abs(f) < 0x1p-126f) {
            return;
        }
        int exp = Math.getExponent(f);
        double scaled = Math.abs((double) f) / Math.scalb(1.0, exp) * 128; // [128, 256)
        double rounded = Math.copySign(Math.scalb(Math.rint(scaled), exp - 7), f);
        float expected = Math.abs(rounded) >= 0x1p128 ? Math.copySign(Float.POSITIVE_INFINITY, f) : (float) rounded;
        assertThat(HalfFloats.bf16ToF32(HalfFloats.f32ToBf16(f))).isEqualTo(expected);
    }

    @Property(tries = 1000)
    void f16MatchesJdkAndExactReference(@ForAll int bits) {
        float f = Float.intBitsToFloat(bits);
        short h = HalfFloats.f32ToF16(f);
        if (Float.isNaN(f)) {
            assertThat(HalfFloats.isF16NaN(h)).isTrue();
            assertThat(h & HalfFloats.F16_QUIET).isNotZero();
            assertThat(h & 0x8000).isEqualTo(bits >>> 16 & 0x8000);
        } else {
            assertThat(h).isEqualTo(Float.floatToFloat16(f));
            check(Format.F16, f, reference(Format.F16, f));
        }
    }
}
