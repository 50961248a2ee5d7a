package io.nexar.testkit;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import java.util.function.ToDoubleFunction;

/**
 * Seeded per-rank inputs for collective tests. {@link #exact} values make every reduction order give the same bits
 * (small integers and powers of two, so sums and products are exact in every type, F16 and BF16 included);
 * {@link #random} values exercise rounding.
 */
public final class Inputs {
    private Inputs() {
    }

    /**
     * {@code world} buffers of {@code count} elements whose reductions by {@code op} are exact in any order.
     *
     * @param seed the seed of the values
     * @param world the number of buffers, one per rank
     * @param count the number of elements of each buffer
     * @param type the element type
     * @param op the operator the values are chosen for (PROD avoids zeros)
     * @return the buffers, one per rank, heap segments accessible from every thread
     */
    public static MemorySegment[] exact(long seed, int world, long count, DataType type, ReduceOp op) {
        double[] choices = op == ReduceOp.PROD ? new double[] {-2, -1, 1, 2, 0.5}
                : new double[] {-2, -1, 0, 1, 2, 3, 0.5, -0.0};
        return fill(seed, world, count, type, random -> choices[random.nextInt(choices.length)]);
    }

    /**
     * {@code world} buffers of random values (floats in [-1000, 1000)).
     *
     * @param seed the seed of the values
     * @param world the number of buffers, one per rank
     * @param count the number of elements of each buffer
     * @param type the element type
     * @return the buffers, one per rank, heap segments accessible from every thread
     */
    public static MemorySegment[] random(long seed, int world, long count, DataType type) {
        return fill(seed, world, count, type, random -> random.nextDouble() * 2000 - 1000);
    }

    /**
     * {@code world} buffers of {@code count} elements drawn from one generator seeded with {@code seed}, rank after
     * rank: floating-point elements from {@code floating}, integer elements uniformly from all 64-bit values (cut to
     * the type).
     */
    private static MemorySegment[] fill(long seed, int world, long count, DataType type,
                                        ToDoubleFunction<Random> floating) {
        var random = new Random(seed);
        var out = new MemorySegment[world];
        for (int r = 0; r < world; r++) {
            MemorySegment seg = zeros(count, type);
            for (long i = 0; i < count; i++) {
                if (type.isFloatingPoint()) {
                    Elements.setDouble(seg, i, type, floating.applyAsDouble(random));
                } else {
                    Elements.setLong(seg, i, type, random.nextLong());
                }
            }
            out[r] = seg;
        }
        return out;
    }

    /**
     * A fresh heap copy of {@code s} (8-byte aligned), accessible from every thread.
     *
     * @param s the segment to copy
     * @return the copy
     */
    public static MemorySegment copy(MemorySegment s) {
        var out = MemorySegment.ofArray(new long[Math.toIntExact((s.byteSize() + 7) / 8)]).asSlice(0, s.byteSize());
        out.copyFrom(s);
        return out;
    }

    /**
     * A zeroed heap segment of {@code count} elements.
     *
     * @param count the number of elements
     * @param type the element type
     * @return the segment
     */
    public static MemorySegment zeros(long count, DataType type) {
        long bytes = count * type.byteSize();
        return MemorySegment.ofArray(new long[Math.toIntExact((bytes + 7) / 8)]).asSlice(0, bytes);
    }
}
