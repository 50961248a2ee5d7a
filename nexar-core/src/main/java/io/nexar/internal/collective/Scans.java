package io.nexar.internal.collective;

import io.nexar.Operation;
import io.nexar.ReduceOp;

/**
 * Prefix reductions. Rank r's inclusive result is x0 op ... op xr; its exclusive result is x0 op ... op x(r-1), and
 * the operator's identity on rank 0. AVG divides by the number of ranks folded in (r+1, or r).
 *
 * <pre>
 * recursive doubling (ceil(log2 n) rounds):    round k: send partial to r + 2^k, fold in the one from r - 2^k
 * linear (deterministic, n rounds):            round r: receive x0..x(r-1) from r-1; round r+1: fold, send to r+1
 * exclusive:                                   the inclusive result, shifted one rank up
 * </pre>
 */
public final class Scans {
    private Scans() {
    }

    /** Recursive doubling (Hillis-Steele); {@code exclusive} follows the spec's operation. */
    public static Algorithm recursiveDoubling() {
        return (rank, size, spec) -> {
            long c = spec.count();
            var s = Schedule.builder(rank, size).scratch(2 * c);
            Slice acc = accumulator(spec, c);
            Slice tmp = new Slice(Buf.SCRATCH, c, c);
            s.round().copy(new Slice(Buf.INPUT, 0, c), acc);
            boolean pending = false;
            for (int d = 1; d < size; d <<= 1) {
                var round = s.round();
                if (pending) {
                    round.reduce(tmp, acc);
                }
                if (rank + d < size) {
                    round.send(rank + d, acc);
                }
                pending = rank - d >= 0;
                if (pending) {
                    round.recvInto(rank - d, tmp);
                }
            }
            int levels = s.rounds() - 1;
            if (pending) {
                s.round().reduce(tmp, acc);
            }
            return finish(s, rank, size, spec, acc, levels + 2);
        };
    }

    /** Linear chain: the sequential left fold in rank order (deterministic mode). */
    public static Algorithm linear() {
        return (rank, size, spec) -> {
            long c = spec.count();
            var s = Schedule.builder(rank, size).scratch(2 * c);
            Slice acc = accumulator(spec, c);
            Slice tmp = new Slice(Buf.SCRATCH, c, c);
            s.at(0).copy(new Slice(Buf.INPUT, 0, c), acc);
            if (rank > 0) {
                s.at(rank).recvInto(rank - 1, tmp);
                s.at(rank + 1).reduce(tmp, acc);
            }
            if (rank + 1 < size) {
                s.at(rank + 1).send(rank + 1, acc);
            }
            return finish(s, rank, size, spec, acc, size + 1);
        };
    }

    /** Inclusive scans accumulate in the output; exclusive ones in scratch, shifted into the output at the end. */
    private static Slice accumulator(OpSpec spec, long c) {
        return spec.operation() == Operation.EXCLUSIVE_SCAN ? new Slice(Buf.SCRATCH, 0, c)
                : new Slice(Buf.OUTPUT, 0, c);
    }

    /** Exclusive scans shift in round {@code shift}, which must be past every rank's last round. */
    private static Schedule finish(Schedule.Builder s, int rank, int size, OpSpec spec, Slice acc, int shift) {
        var out = new Slice(Buf.OUTPUT, 0, spec.count());
        long folded = rank + 1;
        if (spec.operation() == Operation.EXCLUSIVE_SCAN) {
            if (rank + 1 < size) {
                s.at(shift).send(rank + 1, acc);
            }
            if (rank > 0) {
                s.at(shift).recvInto(rank - 1, out);
            } else {
                s.at(shift).identity(out);
            }
            folded = rank;
        }
        if (spec.op() == ReduceOp.AVG && folded > 0) {
            s.round().average(out, folded);
        }
        return s.build();
    }
}
