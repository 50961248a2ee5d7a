package io.nexar.internal.collective;

import io.nexar.ReduceOp;

/**
 * Ring reduce-scatter: rank r ends with the reduction of block r (docs/design.md W2: never block r+1). In step s rank r
 * sends its partial sum of block r-s-1 to r+1 and reduces block r-s-2 from r-1 with its own input block (no copy
 * first: the receive writes input op received); the partial it receives in the last step is block r itself, reduced
 * straight into the output. Two scratch slots alternate so that a round never receives into the slot it sends from.
 *
 * <pre>
 * step 0: send in[r-1]              slot0 = in[r-2] op recv
 * step 1: send slot0                slot1 = in[r-3] op recv
 * ...
 * step n-2: send slot              out   = in[r]   op recv
 * </pre>
 */
public final class RingReduceScatter implements Algorithm {

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        long c = spec.count();
        var s = Schedule.builder(rank, size).scratch(2 * c);
        var out = new Slice(Buf.OUTPUT, 0, c);
        if (size == 1) {
            s.round().copy(new Slice(Buf.INPUT, 0, c), out);
        }
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        Slice sending = input(Math.floorMod(rank - 1, size), c);
        for (int step = 0; step < size - 1; step++) {
            int block = Math.floorMod(rank - step - 2, size);
            Slice target = step == size - 2 ? out : new Slice(Buf.SCRATCH, (step % 2) * c, c);
            s.round().send(next, sending).recvReduce(prev, target, input(block, c)); // target = input op received
            sending = target;
        }
        if (spec.op() == ReduceOp.AVG) {
            s.round().average(out, size);
        }
        return s.build();
    }

    private static Slice input(int block, long c) {
        return new Slice(Buf.INPUT, block * c, c);
    }
}
