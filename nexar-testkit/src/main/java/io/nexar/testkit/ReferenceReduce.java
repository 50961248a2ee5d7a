package io.nexar.testkit;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import io.nexar.internal.collective.Kernels;
import java.lang.foreign.MemorySegment;

/**
 * Sequential references for collective results: the left fold in rank order {@code ((x0 op x1) op x2) ...} with the
 * same element kernels as the runtime, so deterministic mode must match it bit for bit.
 */
public final class ReferenceReduce {
    private ReferenceReduce() {
    }

    /**
     * The fold of {@code count} elements starting at element {@code from} of every input, AVG divided by n.
     *
     * @param inputs one buffer per rank
     * @param from the first element of each input to fold
     * @param count the number of elements to fold
     * @param type the element type
     * @param op the operator
     * @return a new heap segment of {@code count} elements
     */
    public static MemorySegment fold(MemorySegment[] inputs, long from, long count, DataType type, ReduceOp op) {
        return prefix(inputs, inputs.length, from, count, type, op);
    }

    /**
     * The fold of the first {@code ranks} inputs (an inclusive scan at rank ranks-1); identity when ranks is 0.
     *
     * @param inputs one buffer per rank
     * @param ranks how many inputs to fold, from the first
     * @param from the first element of each input to fold
     * @param count the number of elements to fold
     * @param type the element type
     * @param op the operator
     * @return a new heap segment of {@code count} elements
     */
    public static MemorySegment prefix(MemorySegment[] inputs, int ranks, long from, long count, DataType type,
                                       ReduceOp op) {
        int w = type.byteSize();
        MemorySegment acc = MemorySegment.ofArray(new byte[Math.toIntExact(count * w)]);
        if (ranks == 0) {
            Kernels.fillIdentity(acc, 0, count, type, op);
            return acc;
        }
        MemorySegment.copy(inputs[0], from * w, acc, 0, count * w);
        for (int r = 1; r < ranks; r++) {
            Kernels.reduce(acc, 0, inputs[r], from * w, count, type, op);
        }
        if (op == ReduceOp.AVG) {
            Kernels.finishAverage(acc, 0, count, type, ranks);
        }
        return acc;
    }
}
