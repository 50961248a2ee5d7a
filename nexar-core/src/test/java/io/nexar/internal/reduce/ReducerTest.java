package io.nexar.internal.reduce;

import static io.nexar.internal.reduce.ReduceInputs.SEED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import io.nexar.internal.reduce.ReduceInputs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Reducer} against {@link ReferenceReduce} for every valid type x op pair: random inputs rich in edge values,
 * counts 0, 1, 7, 1001 and one spanning three chunks, zero and odd (unaligned) offsets, heap, native and mixed
 * segments, out-of-place, in-place and aliased forms. Random tests print their seed ({@link ReduceInputs#SEED});
 * jqwik prints its own.
 */
class ReducerTest {
    static final int[] COUNTS = {0, 1, 7, 1001, 2 * Scratch.CHUNK + 3};

    @BeforeAll
    static void printSeed() {
        System.out.println("ReducerTest seed 0x" + Long.toHexString(SEED) + " (rerun with -Dnexar.test.seed=...)");
    }

    static Stream<Arguments> validPairs() {
        return pairs(true);
    }

    static Stream<Arguments> invalidPairs() {
        return pairs(false);
    }

    private static Stream<Arguments> pairs(boolean valid) {
        List<Arguments> out = new ArrayList<>();
        for (DataType type : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                if (valid == !(op.isBitwise() && type.isFloatingPoint())) {
                    out.add(Arguments.of(type, op));
                }
            }
        }
        return out.stream();
    }

    @Test
    @Timeout(10)
    void shouldCoverEveryValidPairAndRejectTheRest() {
        assertThat(validPairs().count()).isEqualTo(68);
        assertThat(invalidPairs().count()).isEqualTo(12);
        validPairs().forEach(p -> assertThat(Reducer.isDefined((DataType) p.get()[0], (ReduceOp) p.get()[1])).isTrue());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("validPairs")
    @Timeout(60)
    void shouldMatchReferenceForEveryKindCountAndOffset(DataType type, ReduceOp op) {
        SplittableRandom rnd = new SplittableRandom(SEED + 131L * type.ordinal() + op.ordinal());
        Kind[] kinds = Kind.values();
        try (Arena arena = Arena.ofConfined()) {
            for (int k = 0; k < 2 * kinds.length; k++) {
                // k < 3: all operands of one kind; k >= 3: three different kinds (heap and native mixed)
                Kind ka = kinds[k % 3];
                Kind kb = k < 3 ? ka : kinds[(k + 1) % 3];
                Kind ko = k < 3 ? ka : kinds[(k + 2) % 3];
                for (int count : COUNTS) {
                    if (count > 7 && k % 2 == 1) {
                        continue; // large counts: fewer kind combinations (still uniform heap, uniform native, mixed)
                    }
                    for (boolean odd : new boolean[] {false, true}) {
                        if (count > 7 && !odd) {
                            continue; // large counts: unaligned offsets only
                        }
                        long aOff = odd ? 3 : 0;
                        long bOff = odd ? 5 : 0;
                        long outOff = odd ? 1 : 0;
                        String where = type + " " + op + " count " + count + " offsets " + aOff + "/" + bOff + "/"
                                + outOff + " kinds " + ka + "/" + kb + "/" + ko + " seed 0x" + Long.toHexString(SEED);
                        checkAllForms(arena, type, op, count, ka, kb, ko, aOff, bOff, outOff, rnd, where);
                    }
                }
            }
        }
    }

    private static void checkAllForms(Arena arena, DataType type, ReduceOp op, int count, Kind ka, Kind kb, Kind ko,
                                      long aOff, long bOff, long outOff, SplittableRandom rnd, String where) {
        long[] a = ReduceInputs.elements(type, count, rnd);
        long[] b = ReduceInputs.elements(type, count, rnd);
        long[] expected = new long[count];
        for (int i = 0; i < count; i++) {
            expected[i] = ReferenceReduce.combine(type, op, a[i], b[i]);
        }

        // Out of place: a and b untouched, out written exactly in range (guard bytes around it survive).
        MemorySegment sa = ReduceInputs.segment(arena, ka, type, aOff, a, 4);
        MemorySegment sb = ReduceInputs.segment(arena, kb, type, bOff, b, 4);
        MemorySegment so = ReduceInputs.segment(arena, ko, type, outOff, ReduceInputs.elements(type, count, rnd), 5);
        byte[] aBefore = sa.toArray(ValueLayout.JAVA_BYTE);
        byte[] bBefore = sb.toArray(ValueLayout.JAVA_BYTE);
        byte[] oBefore = so.toArray(ValueLayout.JAVA_BYTE);
        Reducer.reduce(sa, aOff, sb, bOff, so, outOff, count, type, op);
        assertElements(expected, a, b, so, outOff, type, "out of place " + where);
        assertArrayEquals(aBefore, sa.toArray(ValueLayout.JAVA_BYTE), "a changed: " + where);
        assertArrayEquals(bBefore, sb.toArray(ValueLayout.JAVA_BYTE), "b changed: " + where);
        byte[] oAfter = so.toArray(ValueLayout.JAVA_BYTE);
        int end = (int) (outOff + (long) count * type.byteSize());
        assertArrayEquals(Arrays.copyOf(oBefore, (int) outOff), Arrays.copyOf(oAfter, (int) outOff),
                "bytes before out written: " + where);
        assertArrayEquals(Arrays.copyOfRange(oBefore, end, oBefore.length),
                Arrays.copyOfRange(oAfter, end, oAfter.length), "bytes after out written: " + where);

        if (op == ReduceOp.AVG) {
            int divisor = 3;
            long[] averaged = new long[count];
            for (int i = 0; i < count; i++) {
                averaged[i] = ReferenceReduce.divide(type, expected[i], divisor);
            }
            Reducer.finishAverage(so, outOff, count, type, divisor);
            assertElements(averaged, expected, expected, so, outOff, type, "finishAverage / 3 " + where);
        }

        // In place: acc = op(acc, in); in untouched.
        Reducer.reduce(sa, aOff, sb, bOff, count, type, op);
        assertElements(expected, a, b, sa, aOff, type, "in place " + where);
        assertArrayEquals(bBefore, sb.toArray(ValueLayout.JAVA_BYTE), "in changed: " + where);

        // Out aliasing the second operand.
        MemorySegment sa2 = ReduceInputs.segment(arena, ka, type, aOff, a, 0);
        MemorySegment sb2 = ReduceInputs.segment(arena, kb, type, bOff, b, 0);
        Reducer.reduce(sa2, aOff, sb2, bOff, sb2, bOff, count, type, op);
        assertElements(expected, a, b, sb2, bOff, type, "out == b " + where);
    }

    static void assertElements(long[] expected, long[] a, long[] b, MemorySegment s, long offset, DataType type,
                               String where) {
        long[] actual = ReduceInputs.values(s, offset, type, expected.length);
        for (int i = 0; i < expected.length; i++) {
            if (!ReferenceReduce.same(type, expected[i], actual[i])) {
                fail(where + ": element " + i + " of " + expected.length + ": op(" + hex(type, a[i]) + ", "
                        + hex(type, b[i]) + ") expected " + hex(type, expected[i]) + " but was "
                        + hex(type, actual[i]));
            }
        }
    }

    static String hex(DataType type, long bits) {
        String h = HexFormat.of().toHexDigits(bits & ReferenceReduce.mask(type));
        return "0x" + h.substring(16 - 2 * type.byteSize());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("invalidPairs")
    @Timeout(10)
    void shouldRejectBitwiseOpsOnFloatingPointWithTheExactMessage(DataType type, ReduceOp op) {
        String message = op + " is not defined for " + type + " (bitwise ops take integer types)";
        assertThat(Reducer.isDefined(type, op)).isFalse();
        assertThatThrownBy(() -> Reducer.check(type, op)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
        MemorySegment a = MemorySegment.ofArray(new byte[16]);
        MemorySegment out = MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
        assertThatThrownBy(() -> Reducer.reduce(a, 0, a, 0, out, 0, 2, type, op))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
        assertThatThrownBy(() -> Reducer.reduce(out, 0, a, 0, 0, type, op))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
        assertThat(out.toArray(ValueLayout.JAVA_BYTE)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                15, 16);
    }

    @Test
    @Timeout(10)
    void shouldNameTheOperatorAndTypeOfAnInvalidPair() {
        assertThatThrownBy(() -> Reducer.check(DataType.F32, ReduceOp.BXOR))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("BXOR is not defined for F32 (bitwise ops take integer types)");
    }

    @Test
    @Timeout(10)
    void shouldRejectBadArgumentsBeforeWritingAnything() {
        byte[] backing = {1, 2, 3, 4, 5, 6, 7, 8};
        MemorySegment out = MemorySegment.ofArray(backing);
        MemorySegment in = MemorySegment.ofArray(new byte[64]);
        assertThatThrownBy(() -> Reducer.reduce(out, 0, in, 0, 3, DataType.F32, ReduceOp.SUM))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("acc: offset 0 + 12 bytes (3 x F32) does not fit in a segment of 8 bytes");
        assertThatThrownBy(() -> Reducer.reduce(in, 0, in, 60, in, 0, 2, DataType.I32, ReduceOp.MAX))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("b: offset 60 + 8 bytes (2 x I32) does not fit in a segment of 64 bytes");
        assertThatThrownBy(() -> Reducer.reduce(in, 0, in, 0, out, 1, 1, DataType.F64, ReduceOp.MIN))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("out: offset 1 + 8 bytes (1 x F64) does not fit in a segment of 8 bytes");
        assertThatThrownBy(() -> Reducer.reduce(out, -1, in, 0, 1, DataType.U8, ReduceOp.SUM))
                .isInstanceOf(IndexOutOfBoundsException.class).hasMessageStartingWith("acc: offset -1 + 1 bytes");
        assertThatThrownBy(() -> Reducer.reduce(out, 0, in, 0, -1, DataType.U8, ReduceOp.SUM))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("count -1 is not in [0, 9223372036854775807]");
        assertThatThrownBy(() -> Reducer.reduce(out, 0, in, 0, Long.MAX_VALUE / 2, DataType.U64, ReduceOp.SUM))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overflows a 64-bit byte length");
        assertThatThrownBy(() -> Reducer.reduce(out.asReadOnly(), 0, in, 0, 1, DataType.I8, ReduceOp.SUM))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("acc is a read-only segment");
        assertThatThrownBy(() -> Reducer.reduce(in, 0, in, 0, out.asReadOnly(), 0, 1, DataType.I8, ReduceOp.SUM))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("out is a read-only segment");
        assertThatThrownBy(() -> Reducer.reduce(out, 0, in, 62, 1, DataType.I32, ReduceOp.SUM))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("in: offset 62 + 4 bytes (1 x I32) does not fit in a segment of 64 bytes");
        assertThatThrownBy(() -> Reducer.finishAverage(out, 0, 1, DataType.I32, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("divisor 0 is not in [1, 2147483647]");
        assertThatThrownBy(() -> Reducer.finishAverage(out, 0, 1, DataType.I32, -4))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("divisor -4 is not in [1, 2147483647]");
        assertThatThrownBy(() -> Reducer.finishAverage(out, 4, 2, DataType.I32, 2))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("acc: offset 4 + 8 bytes (2 x I32) does not fit in a segment of 8 bytes");
        assertThatThrownBy(() -> Reducer.finishAverage(out.asReadOnly(), 0, 1, DataType.I32, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("acc is a read-only segment");
        assertThatThrownBy(() -> Reducer.reduce(null, 0, in, 0, 1, DataType.I8, ReduceOp.SUM))
                .isInstanceOf(NullPointerException.class).hasMessage("acc");
        assertThatThrownBy(() -> Reducer.reduce(in, 0, in, 0, null, 0, 1, DataType.I8, ReduceOp.SUM))
                .isInstanceOf(NullPointerException.class).hasMessage("out");
        assertThatThrownBy(() -> Reducer.reduce(out, 0, in, 0, 1, null, ReduceOp.SUM))
                .isInstanceOf(NullPointerException.class).hasMessage("type");
        assertThat(backing).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        // Empty ranges are valid anywhere inside or at the end of a segment, and touch nothing.
        Reducer.reduce(out, 8, in, 64, 0, DataType.F64, ReduceOp.PROD);
        Reducer.finishAverage(out, 8, 0, DataType.F64, 7);
        assertThat(backing).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    }

    @Test
    @Timeout(10)
    void shouldReduceAnOperandWithItself() {
        MemorySegment s = MemorySegment.ofArray(new int[] {3, -4, Integer.MIN_VALUE});
        Reducer.reduce(s, 0, s, 0, 3, DataType.I32, ReduceOp.SUM);
        assertThat(s.toArray(ValueLayout.JAVA_INT)).containsExactly(6, -8, 0);
    }

    /**
     * The same inputs reduced many times must give the same bits whether the loops run interpreted, in C1, or
     * compiled and vectorised by C2 (the reference's SIMD and scalar paths disagreed, W11). Inputs are mostly edge
     * values so NaN, signed zero and rounding ties reach the vector code.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("validPairs")
    @Timeout(60)
    void shouldGiveTheSameBitsOnEveryJitTier(DataType type, ReduceOp op) {
        int count = 4096;
        SplittableRandom rnd = new SplittableRandom(SEED * 31 + 7L * type.ordinal() + op.ordinal());
        long[] a = ReduceInputs.elements(type, count, rnd);
        long[] b = ReduceInputs.elements(type, count, rnd);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = ReduceInputs.segment(arena, Kind.NATIVE, type, 0, a, 0);
            MemorySegment sb = ReduceInputs.segment(arena, Kind.HEAP_BYTES, type, 0, b, 0);
            MemorySegment out = arena.allocate((long) count * type.byteSize());
            Reducer.reduce(sa, 0, sb, 0, out, 0, count, type, op);
            byte[] first = out.toArray(ValueLayout.JAVA_BYTE);
            long[] expected = new long[count];
            for (int i = 0; i < count; i++) {
                expected[i] = ReferenceReduce.combine(type, op, a[i], b[i]);
            }
            assertElements(expected, a, b, out, 0, type, "first run, seed 0x" + Long.toHexString(SEED));
            boolean payloadFree = type == DataType.F32 || type == DataType.F64; // NaN payloads are unspecified there
            for (int rep = 0; rep < 150; rep++) {
                Reducer.reduce(sa, 0, sb, 0, out, 0, count, type, op);
                if (!payloadFree) {
                    assertArrayEquals(first, out.toArray(ValueLayout.JAVA_BYTE), "run " + rep);
                }
            }
            assertElements(expected, a, b, out, 0, type, "last run, seed 0x" + Long.toHexString(SEED));
        }
    }

    @Test
    @Timeout(30)
    void shouldNotAllocateOnceWarm() throws ReflectiveOperationException {
        // Through reflection: the test is compiled inside module io.nexar, which does not read jdk.management.
        Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                .invoke(null);
        Method allocatedBytes = Class.forName("com.sun.management.ThreadMXBean")
                .getMethod("getCurrentThreadAllocatedBytes");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nativeAcc = arena.allocate(4 * 3000);
            MemorySegment heapIn = MemorySegment.ofArray(new float[3000]);
            for (int i = 0; i < 2000; i++) {
                Reducer.reduce(nativeAcc, 0, heapIn, 0, 3000, DataType.F32, ReduceOp.SUM);
                Reducer.reduce(heapIn, 0, nativeAcc, 4, 2999, DataType.F32, ReduceOp.MAX);
                Reducer.finishAverage(nativeAcc, 0, 3000, DataType.F32, 3);
            }
            long before = (long) allocatedBytes.invoke(threads);
            for (int i = 0; i < 1000; i++) {
                Reducer.reduce(nativeAcc, 0, heapIn, 0, 3000, DataType.F32, ReduceOp.SUM);
                Reducer.reduce(heapIn, 0, nativeAcc, 4, 2999, DataType.F32, ReduceOp.MAX);
                Reducer.finishAverage(nativeAcc, 0, 3000, DataType.F32, 3);
            }
            long allocated = (long) allocatedBytes.invoke(threads) - before;
            assertThat(allocated).as("bytes allocated by 3000 warm calls").isLessThan(4096);
        }
    }

    /** Pooled scratch arrays must never be shared: concurrent callers, platform and virtual, each get their own. */
    @Test
    @Timeout(60)
    void shouldReduceConcurrentlyOnPlatformAndVirtualThreads() throws InterruptedException {
        int threads = 8;
        int count = 3 * Scratch.CHUNK + 1;
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        List<Thread> started = new ArrayList<>();
        CountDownLatch gate = new CountDownLatch(1);
        for (int t = 0; t < threads; t++) {
            int id = t;
            Runnable body = () -> {
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    failures.add(e);
                    return;
                }
                long[] acc = new long[count];
                long[] in = new long[count];
                Arrays.fill(in, id + 1);
                MemorySegment accSegment = MemorySegment.ofArray(acc);
                MemorySegment inSegment = MemorySegment.ofArray(in);
                for (int rep = 0; rep < 1000; rep++) {
                    Reducer.reduce(accSegment, 0, inSegment, 0, count, DataType.I64, ReduceOp.SUM);
                }
                for (int i = 0; i < count; i++) {
                    if (acc[i] != 1000L * (id + 1)) {
                        failures.add(new AssertionError("thread " + id + " element " + i + ": " + acc[i]));
                        return;
                    }
                }
            };
            started.add(id % 2 == 0 ? Thread.ofPlatform().start(body) : Thread.ofVirtual().start(body));
        }
        gate.countDown();
        for (Thread t : started) {
            t.join();
        }
        assertThat(failures).isEmpty();
    }

    /** Random type, op, count and offsets against the reference; jqwik prints the seed of a failing run. */
    @Property(tries = 400)
    void reduceMatchesReference(@ForAll DataType type, @ForAll ReduceOp op,
                                @ForAll @IntRange(max = 2100) int count, @ForAll long seed) {
        Assume.that(Reducer.isDefined(type, op));
        SplittableRandom rnd = new SplittableRandom(seed);
        Kind[] kinds = Kind.values();
        try (Arena arena = Arena.ofConfined()) {
            checkAllForms(arena, type, op, count, kinds[rnd.nextInt(3)], kinds[rnd.nextInt(3)],
                    kinds[rnd.nextInt(3)], rnd.nextInt(9), rnd.nextInt(9), rnd.nextInt(9), rnd,
                    type + " " + op + " count " + count + " seed " + seed);
        }
    }
}
