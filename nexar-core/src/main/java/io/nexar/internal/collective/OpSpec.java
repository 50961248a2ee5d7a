package io.nexar.internal.collective;

import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.ReduceOp;

/**
 * The arguments of one collective call that shape its schedule.
 *
 * <p>Buffer conventions, in elements of {@code type} ({@code n} is the communicator size, {@code c} the count):
 * <pre>
 * operation       INPUT            OUTPUT           notes
 * allReduce       c                c                in place: INPUT is OUTPUT
 * broadcast       -                c                in place only
 * reduce          c                c (root only)    non-roots work in SCRATCH
 * allGather       c or counts[r]   n*c or sum       in place: INPUT is block r of OUTPUT
 * reduceScatter   n*c              c                block r of the reduction
 * allToAll        n*c or sends     n*c or recvs     block j goes to rank j
 * gather          c or counts[r]   n*c / sum (root)
 * scatter         n*c / sum (root) c or counts[r]
 * scan, exScan    c                c
 * barrier         -                -
 * </pre>
 *
 * @param operation which collective
 * @param type element type
 * @param op reduce operator, or null when the operation does not reduce
 * @param count elements per rank (per block), or -1 for the V forms
 * @param root the root, or -1
 * @param counts per-rank block sizes of the V forms (allToAllV: send counts), or null
 * @param recvCounts allToAllV receive counts, or null
 * @param inPlace true if INPUT and OUTPUT are the same memory
 */
public record OpSpec(Operation operation, DataType type, ReduceOp op, long count, int root, long[] counts,
                     long[] recvCounts, boolean inPlace) {

    /** The reduce operator applied to partial results: AVG sums, and the owner divides at the end. */
    public ReduceOp combiner() {
        return op == ReduceOp.AVG ? ReduceOp.SUM : op;
    }

    /** Block size of rank {@code i}: {@code counts[i]} for V forms, {@code count} otherwise. */
    public long block(int i) {
        return counts != null ? counts[i] : count;
    }

    /** Offset of block {@code i} when blocks are packed in rank order. */
    public long blockOffset(int i) {
        if (counts == null) {
            return i * count;
        }
        long sum = 0;
        for (int j = 0; j < i; j++) {
            sum += counts[j];
        }
        return sum;
    }

    /** Slice of block {@code i} of {@code buf}, blocks packed in rank order. */
    public Slice blockSlice(Buf buf, int i) {
        return new Slice(buf, blockOffset(i), block(i));
    }

    /**
     * As a record's equals (the arrays by identity), written out: a call that is not one of its communicator's recent
     * ones looks its schedule up by its spec, and the generated method's chain of method handles for eight components
     * was not inlined (0.5-1% of a small collective's samples in a profile, docs/performance.md).
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof OpSpec s && operation == s.operation && type == s.type && op == s.op && count == s.count
                && root == s.root && counts == s.counts && recvCounts == s.recvCounts && inPlace == s.inPlace;
    }

    @Override
    public int hashCode() {
        int h = operation.hashCode();
        h = 31 * h + type.hashCode();
        h = 31 * h + (op == null ? 0 : op.hashCode());
        h = 31 * h + Long.hashCode(count);
        h = 31 * h + root;
        h = 31 * h + System.identityHashCode(counts);
        h = 31 * h + System.identityHashCode(recvCounts);
        return 31 * h + (inPlace ? 1 : 0);
    }
}
