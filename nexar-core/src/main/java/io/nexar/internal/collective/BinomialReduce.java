package io.nexar.internal.collective;

import io.nexar.ReduceOp;

/**
 * Binomial-tree reduce to the root: with v = (r - root) mod n, in round k a rank whose bit k is set sends its partial
 * result to v - 2^k and is done; the others reduce what v + 2^k sends them. ceil(log2 n) rounds, the whole buffer per
 * message. Non-roots accumulate in scratch, so their buffers are never written.
 *
 * <pre>
 * v: 1 -> 0, 3 -> 2, 5 -> 4 ...   then 2 -> 0, 6 -> 4 ...   then 4 -> 0 ...
 * </pre>
 */
public final class BinomialReduce implements Algorithm {

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        long c = spec.count();
        var s = Schedule.builder(rank, size);
        boolean root = rank == spec.root();
        Slice acc = root ? new Slice(Buf.OUTPUT, 0, c) : new Slice(Buf.SCRATCH, 0, c);
        if (!root) {
            s.scratch(c);
        }
        s.at(0).copy(new Slice(Buf.INPUT, 0, c), acc);
        int v = Math.floorMod(rank - spec.root(), size);
        int k = 0;
        for (int mask = 1; mask < size; mask <<= 1, k++) {
            if ((v & mask) != 0) {
                s.at(k).send(Math.floorMod(v - mask + spec.root(), size), acc);
                break;
            }
            if (v + mask < size) {
                s.at(k).recvReduce((v + mask + spec.root()) % size, acc);
            }
        }
        if (root && spec.op() == ReduceOp.AVG) {
            s.round().average(acc, size);
        }
        return s.build();
    }
}
