package io.nexar.testkit;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.util.Random;

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
        var random = new Random(seed);
        var out = new MemorySegment[world];
        int w = type.byteSize();
        for (int r = 0; r < world; r++) {
            var seg = MemorySegment.ofArray(new long[Math.toIntExact((count * w + 7) / 8)]).asSlice(0, count * w);
            for (long i = 0; i < count; i++) {
                if (type.isFloatingPoint()) {
                    double[] choices = op == ReduceOp.PROD ? new double[] {-2, -1, 1, 2, 0.5}
                            : new double[] {-2, -1, 0, 1, 2, 3, 0.5, -0.0};
                    Elements.setDouble(seg, i, type, choices[random.nextInt(choices.length)]);
                } else {
                    Elements.setLong(seg, i, type, random.nextLong());
                }
            }
            out[r] = seg;
        }
        return out;
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
        var random = new Random(seed);
        var out = new MemorySegment[world];
        int w = type.byteSize();
        for (int r = 0; r < world; r++) {
            var seg = MemorySegment.ofArray(new long[Math.toIntExact((count * w + 7) / 8)]).asSlice(0, count * w);
            for (long i = 0; i < count; i++) {
                if (type.isFloatingPoint()) {
                    Elements.setDouble(seg, i, type, random.nextDouble() * 2000 - 1000);
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
