package io.nexar.internal.reduce;

import static io.nexar.internal.reduce.ReduceInputs.SEED;
import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import io.nexar.internal.reduce.ReduceInputs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * AVG: the sum reduced over several ranks and {@link Reducer#finishAverage} against {@link ReferenceReduce} for every
 * type, and hand-picked quotients (truncation toward zero, unsigned division, correct rounding with ties to even,
 * signed zeros, infinities, NaN). The AVG cases of {@link ReducerTest} also divide every random sum by 3.
 */
class ReducerAverageTest {

    @BeforeAll
    static void printSeed() {
        System.out.println("ReducerAverageTest seed 0x" + Long.toHexString(SEED) + " (rerun with -Dnexar.test.seed=...)");
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    @Timeout(60)
    void shouldAverageFiveRanksLikeTheReferenceFold(DataType type) {
        int ranks = 5;
        int count = 1001;
        SplittableRandom rnd = new SplittableRandom(SEED ^ 0xA5L * (type.ordinal() + 1));
        long[][] inputs = new long[ranks][];
        for (int r = 0; r < ranks; r++) {
            inputs[r] = ReduceInputs.elements(type, count, rnd);
        }
        long[] expected = inputs[0].clone();
        for (int r = 1; r < ranks; r++) {
            for (int i = 0; i < count; i++) {
                expected[i] = ReferenceReduce.combine(type, ReduceOp.AVG, expected[i], inputs[r][i]);
            }
        }
        for (int i = 0; i < count; i++) {
            expected[i] = ReferenceReduce.divide(type, expected[i], ranks);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment acc = ReduceInputs.segment(arena, Kind.NATIVE, type, 0, inputs[0], 0);
            for (int r = 1; r < ranks; r++) {
                MemorySegment in = ReduceInputs.segment(arena, Kind.HEAP_BYTES, type, 0, inputs[r], 0);
                Reducer.reduce(acc, 0, in, 0, count, type, ReduceOp.AVG);
            }
            Reducer.finishAverage(acc, 0, count, type, ranks);
            ReducerTest.assertElements(expected, inputs[0], inputs[1], acc, 0, type,
                    "AVG over " + ranks + " ranks, seed 0x" + Long.toHexString(SEED));
        }
    }

    static Stream<Arguments> averageCases() {
        return Stream.of(
                // signed integers truncate toward zero, never toward negative infinity
                Arguments.of(DataType.I8, -7L, 2, -3L), Arguments.of(DataType.I8, -128L, 3, -42L),
                Arguments.of(DataType.I8, -1L, 2, 0L), Arguments.of(DataType.I8, 127L, 2, 63L),
                Arguments.of(DataType.I32, -7L, 2, -3L), Arguments.of(DataType.I32, -1L, 4, 0L),
                Arguments.of(DataType.I32, (long) Integer.MIN_VALUE, 2, (long) (Integer.MIN_VALUE / 2)),
                Arguments.of(DataType.I32, (long) Integer.MIN_VALUE, 7, -306783378L),
                Arguments.of(DataType.I64, -7L, 2, -3L), Arguments.of(DataType.I64, Long.MIN_VALUE, 3,
                        -3074457345618258602L),
                // unsigned integers divide the high-bit values as large positives
                Arguments.of(DataType.U8, 0xFFL, 2, 0x7FL), Arguments.of(DataType.U8, 0x80L, 3, 42L),
                Arguments.of(DataType.U32, 0xFFFF_FFFFL, 2, 0x7FFF_FFFFL),
                Arguments.of(DataType.U32, 0x8000_0000L, 3, 715827882L),
                Arguments.of(DataType.U64, -1L, 3, 0x5555_5555_5555_5555L),
                Arguments.of(DataType.U64, Long.MIN_VALUE, 2, 0x4000_0000_0000_0000L),
                Arguments.of(DataType.U64, -1L, Integer.MAX_VALUE, 0x2_0000_0004L),
                // floating point: correctly rounded, ties to even, signs and specials kept
                Arguments.of(DataType.F32, bits(1f), 3, bits(0.33333334f)), Arguments.of(DataType.F32, bits(-0f), 3,
                        bits(-0f)),
                Arguments.of(DataType.F32, bits(Float.MIN_VALUE), 2, bits(0f)),
                Arguments.of(DataType.F32, bits(3 * Float.MIN_VALUE), 2, bits(2 * Float.MIN_VALUE)),
                Arguments.of(DataType.F32, bits(Float.NEGATIVE_INFINITY), 3, bits(Float.NEGATIVE_INFINITY)),
                Arguments.of(DataType.F32, bits(16777215f), 16777217, bits((float) (16777215d / 16777217d))),
                Arguments.of(DataType.F64, Double.doubleToRawLongBits(1d), 3, Double.doubleToRawLongBits(1d / 3)),
                Arguments.of(DataType.F16, 0x3C00L, 3, 0x3555L), Arguments.of(DataType.F16, 0x0001L, 2, 0x0000L),
                Arguments.of(DataType.F16, 0x0003L, 2, 0x0002L), Arguments.of(DataType.F16, 0x8003L, 2, 0x8002L),
                Arguments.of(DataType.F16, 0x7BFFL, 1, 0x7BFFL), Arguments.of(DataType.F16, 0x7C01L, 3, 0x7E00L),
                Arguments.of(DataType.BF16, 0x3F80L, 3, 0x3EABL), Arguments.of(DataType.BF16, 0x0001L, 2, 0x0000L),
                Arguments.of(DataType.BF16, 0x0003L, 2, 0x0002L), Arguments.of(DataType.BF16, 0xFF81L, 3, 0x7FC0L));
    }

    private static long bits(float f) {
        return Float.floatToRawIntBits(f) & 0xFFFF_FFFFL;
    }

    @ParameterizedTest(name = "{0}: {1} / {2} = {3}")
    @MethodSource("averageCases")
    @Timeout(10)
    void shouldFinishAverageByTruncatingTowardZeroAndDividingUnsigned(DataType type, long sum, int divisor,
                                                                       long expected) {
        long mask = ReferenceReduce.mask(type);
        assertThat(ReferenceReduce.divide(type, sum & mask, divisor)).as("reference").isEqualTo(expected & mask);
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment acc = ReduceInputs.segment(arena, kind, type, 1, new long[] {sum, sum, sum}, 0);
                Reducer.finishAverage(acc, 1 + type.byteSize(), 2, type, divisor);
                assertThat(ReduceInputs.values(acc, 1, type, 3)).as(kind.toString())
                        .containsExactly(sum & mask, expected & mask, expected & mask);
            }
        }
    }
}
