package io.nexar.internal.reduce;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Element-wise reduction kernels for every valid {@link DataType} x {@link ReduceOp} pair, on little-endian elements
 * in heap or native {@link MemorySegment}s at any byte offset (no alignment required). Counts are in elements and
 * 64-bit; offsets are in bytes.
 *
 * <h2>Semantics</h2>
 * Exactly those documented on {@link ReduceOp}: integers wrap; MIN/MAX of floating point return NaN if either operand
 * is NaN and order -0.0 below +0.0; unsigned types compare and divide unsigned. AVG reduces like SUM and
 * {@link #finishAverage} divides once at the end (integers truncate toward zero). F16 and BF16 compute each step in
 * F32 and round back to nearest-even, which is the correctly rounded 16-bit result (see {@code HalfKernels}); their
 * NaN results are the canonical quiet NaN (0x7E00, 0x7FC0). F32/F64 NaN payloads are whatever the hardware yields
 * (Java leaves them unspecified). Results never depend on the CPU, on the JIT tier, or on heap versus native memory:
 * the reference implementation's SIMD and scalar paths disagreed on BF16 rounding and NaN handling (W11).
 *
 * <h2>How the kernels run</h2>
 * A switch outside the loops picks a specialised plain counted loop per (type, op); nothing in an inner loop is a
 * lambda or a virtual call. The loops run over primitive arrays, one chunk (1024 elements) at a time: each chunk of
 * both operands is bulk-copied into pooled scratch arrays with {@link MemorySegment#copy}, the loop combines them,
 * and the chunk is copied to {@code out}. Loops written directly against segments were measured on JDK 25 and
 * rejected, for two reasons:
 * <ul>
 *   <li>C2 cannot prove that two segments do not partially overlap, so it never vectorised them (0.3 ns per element
 *       for byte and float sums alike; the array loop takes 0.06, or 0.25 with the three chunk copies);</li>
 *   <li>once one loop has seen heap and native segments (a user's {@code float[]} and a pooled buffer) its type
 *       profile is polluted: the loop either slowed tenfold or fell into a deoptimise/recompile cycle costing
 *       200-500 ns per element. Bulk copies are immune, whatever the mix.</li>
 * </ul>
 * Expected C2 vectorisation on x86-64 (to be confirmed by the JMH benchmarks, never asserted in tests; a throwaway
 * harness on an AVX-512 machine measured 0.06 ns per element for the F32 SUM loop, 0.09 for I8 PROD, 0.15 for U64
 * MIN, 0.4-0.7 for the unvectorised I8 MIN):
 * <ul>
 *   <li>vectorised: F32 and F64 SUM, PROD, MIN, MAX (Java MIN/MAX semantics in vector form) and AVG finish; every
 *       integer type's SUM, PROD, BAND, BOR, BXOR (I64/U64 PROD needs AVX-512DQ); I32/U32 and I64/U64 MIN/MAX,
 *       unsigned via the sign-flip trick (64-bit best with AVX-512); the chunk copies (bulk copy stubs);</li>
 *   <li>probably vectorised: F16 SUM, PROD, MIN, MAX, through the vector forms of the F16C conversion intrinsics,
 *       and the F16/BF16 NaN-canonicalising pass (a select on shorts);</li>
 *   <li>not vectorised: BF16 (raw-bit reinterpretation and a NaN branch; about 2 ns per element), I8/U8 MIN/MAX,
 *       and integer AVG finish (there is no SIMD integer division).</li>
 * </ul>
 *
 * <h2>Threading, memory, errors</h2>
 * Static and thread-safe; callers own the segments for the duration of a call. Scratch arrays come from a small
 * pool, so a warm call allocates nothing. Every argument is checked before any element is written, so a failed call
 * leaves {@code out} unchanged. Caller bugs raise {@link IllegalArgumentException} (bad type/op pair, negative
 * count, divisor below 1, read-only destination), {@link IndexOutOfBoundsException} (a range that does not fit its
 * segment; the message names the operand and both sizes) or {@link NullPointerException}; a closed or foreign-thread
 * segment fails as {@link MemorySegment#copy} does.
 */
public final class Reducer {
    private Reducer() {
    }

    /**
     * In place: {@code acc[i] = op(acc[i], in[i])} for {@code count} elements. AVG adds (see {@link #finishAverage}).
     * {@code in} may be the same memory as {@code acc} (same address), giving {@code op(x, x)}.
     *
     * @param acc accumulator, read and written
     * @param accOffset byte offset of element 0 in {@code acc}
     * @param in second operand, only read
     * @param inOffset byte offset of element 0 in {@code in}
     * @param count number of elements, {@code >= 0}
     * @param type element type
     * @param op operator, valid for {@code type} (see {@link #check})
     * @throws IllegalArgumentException for an invalid type/op pair, a negative count or a read-only {@code acc}
     * @throws IndexOutOfBoundsException if a range does not fit its segment (the message names {@code acc} or
     *     {@code in})
     */
    public static void reduce(MemorySegment acc, long accOffset, MemorySegment in, long inOffset, long count,
                              DataType type, ReduceOp op) {
        long bytes = checkPair(type, op, count);
        checkRange("acc", acc, accOffset, bytes, count, type);
        checkRange("in", in, inOffset, bytes, count, type);
        checkWritable("acc", acc);
        run(acc, accOffset, in, inOffset, acc, accOffset, count, type, op);
    }

    /**
     * Out of place: {@code out[i] = op(a[i], b[i])} for {@code count} elements. AVG adds (see
     * {@link #finishAverage}). {@code out} may be exactly {@code a} or {@code b} (same address, in place); a
     * partial overlap at a different address gives unspecified results.
     *
     * @param a first operand, only read (unless it is {@code out})
     * @param aOffset byte offset of element 0 in {@code a}
     * @param b second operand, only read (unless it is {@code out})
     * @param bOffset byte offset of element 0 in {@code b}
     * @param out destination, written
     * @param outOffset byte offset of element 0 in {@code out}
     * @param count number of elements, {@code >= 0}
     * @param type element type
     * @param op operator, valid for {@code type} (see {@link #check})
     * @throws IllegalArgumentException for an invalid type/op pair, a negative count or a read-only {@code out}
     * @throws IndexOutOfBoundsException if a range does not fit its segment
     */
    public static void reduce(MemorySegment a, long aOffset, MemorySegment b, long bOffset, MemorySegment out,
                              long outOffset, long count, DataType type, ReduceOp op) {
        long bytes = checkPair(type, op, count);
        checkRange("a", a, aOffset, bytes, count, type);
        checkRange("b", b, bOffset, bytes, count, type);
        checkRange("out", out, outOffset, bytes, count, type);
        checkWritable("out", out);
        run(a, aOffset, b, bOffset, out, outOffset, count, type, op);
    }

    private static void run(MemorySegment a, long aOffset, MemorySegment b, long bOffset, MemorySegment out,
                            long outOffset, long count, DataType type, ReduceOp op) {
        if (count == 0) {
            return;
        }
        Scratch s = Scratch.acquire();
        try {
            switch (type) {
                case F32 -> FloatKernels.reduceF32(a, aOffset, b, bOffset, out, outOffset, count, op, s);
                case F64 -> FloatKernels.reduceF64(a, aOffset, b, bOffset, out, outOffset, count, op, s);
                case F16 -> HalfKernels.reduce(a, aOffset, b, bOffset, out, outOffset, count, false, op, s);
                case BF16 -> HalfKernels.reduce(a, aOffset, b, bOffset, out, outOffset, count, true, op, s);
                case I8 -> ByteKernels.reduce(a, aOffset, b, bOffset, out, outOffset, count, false, op, s);
                case U8 -> ByteKernels.reduce(a, aOffset, b, bOffset, out, outOffset, count, true, op, s);
                case I32 -> IntKernels.reduce(a, aOffset, b, bOffset, out, outOffset, count, false, op, s);
                case U32 -> IntKernels.reduce(a, aOffset, b, bOffset, out, outOffset, count, true, op, s);
                case I64 -> LongKernels.reduce(a, aOffset, b, bOffset, out, outOffset, count, false, op, s);
                case U64 -> LongKernels.reduce(a, aOffset, b, bOffset, out, outOffset, count, true, op, s);
            }
        } finally {
            Scratch.release(s);
        }
    }

    /**
     * Completes an AVG: {@code acc[i] = acc[i] / divisor} for {@code count} elements, after the sum was reduced with
     * {@link ReduceOp#AVG} (or SUM). Signed integers truncate toward zero, unsigned ones divide unsigned (a wrapped
     * sum is divided as it stands). Floating-point types give the correctly rounded quotient; F16 and BF16 divide
     * in F32 precision or better and round once to 16 bits. A divisor of 1 leaves {@code acc} untouched.
     *
     * @param acc the summed elements, read and written
     * @param offset byte offset of element 0 in {@code acc}
     * @param count number of elements, {@code >= 0}
     * @param type element type (every type supports AVG)
     * @param divisor the number of contributions (usually the world size), {@code >= 1}
     * @throws IllegalArgumentException for a divisor below 1, a negative count or a read-only {@code acc}
     * @throws IndexOutOfBoundsException if the range does not fit {@code acc}
     */
    public static void finishAverage(MemorySegment acc, long offset, long count, DataType type, int divisor) {
        Objects.requireNonNull(type, "type");
        if (divisor < 1) {
            throw new IllegalArgumentException("divisor " + divisor + " is not in [1, " + Integer.MAX_VALUE + "]");
        }
        long bytes = byteLength(count, type);
        checkRange("acc", acc, offset, bytes, count, type);
        checkWritable("acc", acc);
        if (count == 0 || divisor == 1) {
            return;
        }
        Scratch s = Scratch.acquire();
        try {
            switch (type) {
                case F32 -> FloatKernels.averageF32(acc, offset, count, divisor, s);
                case F64 -> FloatKernels.averageF64(acc, offset, count, divisor, s);
                case F16 -> HalfKernels.average(acc, offset, count, false, divisor, s);
                case BF16 -> HalfKernels.average(acc, offset, count, true, divisor, s);
                case I8 -> ByteKernels.average(acc, offset, count, false, divisor, s);
                case U8 -> ByteKernels.average(acc, offset, count, true, divisor, s);
                case I32 -> IntKernels.average(acc, offset, count, false, divisor, s);
                case U32 -> IntKernels.average(acc, offset, count, true, divisor, s);
                case I64 -> LongKernels.average(acc, offset, count, false, divisor, s);
                case U64 -> LongKernels.average(acc, offset, count, true, divisor, s);
            }
        } finally {
            Scratch.release(s);
        }
    }

    /**
     * True if {@code op} is defined for {@code type}: every operator on integer types, and all but the bitwise ones
     * (BAND, BOR, BXOR) on floating-point types.
     *
     * @param type element type
     * @param op operator
     * @return whether {@link #reduce} accepts the pair
     */
    public static boolean isDefined(DataType type, ReduceOp op) {
        return !(op.isBitwise() && type.isFloatingPoint());
    }

    /**
     * Checks that {@code op} is defined for {@code type}, so collectives can reject a bad pair before any
     * communication.
     *
     * @param type element type
     * @param op operator
     * @throws IllegalArgumentException for a bitwise operator on a floating-point type, for example
     *     "BXOR is not defined for F32 (bitwise ops take integer types)"
     */
    public static void check(DataType type, ReduceOp op) {
        if (!isDefined(type, op)) {
            throw new IllegalArgumentException(op + " is not defined for " + type
                    + " (bitwise ops take integer types)");
        }
    }

    /** Checks type, op and count; returns the byte length of {@code count} elements. */
    private static long checkPair(DataType type, ReduceOp op, long count) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(op, "op");
        check(type, op);
        return byteLength(count, type);
    }

    private static long byteLength(long count, DataType type) {
        if (count < 0) {
            throw new IllegalArgumentException("count " + count + " is not in [0, " + Long.MAX_VALUE + "]");
        }
        if (count > Long.MAX_VALUE / type.byteSize()) {
            throw new IllegalArgumentException("count " + count + " x " + type + " overflows a 64-bit byte length");
        }
        return count * type.byteSize();
    }

    private static void checkRange(String name, MemorySegment segment, long offset, long bytes, long count,
                                   DataType type) {
        Objects.requireNonNull(segment, name);
        long size = segment.byteSize();
        if (offset < 0 || offset > size || bytes > size - offset) {
            throw new IndexOutOfBoundsException(name + ": offset " + offset + " + " + bytes + " bytes (" + count
                    + " x " + type + ") does not fit in a segment of " + size + " bytes");
        }
    }

    private static void checkWritable(String name, MemorySegment segment) {
        if (segment.isReadOnly()) {
            throw new IllegalArgumentException(name + " is a read-only segment");
        }
    }
}
