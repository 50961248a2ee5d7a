package io.nexar.internal.collective;

import io.nexar.ReduceOp;
import java.util.ArrayList;

/**
 * Recursive halving-doubling allreduce (Rabenseifner) for any communicator size. With p the largest power of two
 * at most n and e = n - p, ranks p..n-1 first fold their buffer into rank r-p and wait; the p remaining ranks run a
 * reduce-scatter by recursive halving (log2 p rounds, halving the window each time), then an allgather by recursive
 * doubling (log2 p rounds); finally ranks r < e send the result to r+p. Each element is reduced by exactly one owner,
 * so all ranks get bit-identical results. The input is not copied into the output first: the fold and the first halving
 * round reduce from the input into the output (output = input op received), and every other output element is
 * written by the doubling.
 *
 * <pre>
 * round 0          fold:    r in [p, n) --whole buffer--> r-p          (reduce)
 * rounds 1..L      halving: partner = v ^ (p >> k); lower rank keeps the lower half of the window
 * rounds L+1..2L   doubling: partner = v ^ (1 << k); exchange windows
 * round 2L+1       unfold:  r in [0, e) --whole result--> r+p
 * </pre>
 */
public final class HalvingDoublingAllReduce implements Algorithm {

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        var s = Schedule.builder(rank, size);
        long count = spec.count();
        var all = new Slice(Buf.OUTPUT, 0, count);
        var fold = PowerOfTwoFold.begin(s, rank, size, all, levels -> 2 * levels + 1, false);
        if (fold.folded(rank)) {
            return s.build();
        }
        int p = fold.p();
        int levels = fold.levels();
        // reduce-scatter by recursive halving
        var windows = new ArrayList<Slice>();
        Slice window = all;
        Slice source = fold.source(rank, all); // level 0 reads the input where it lies: no copy into the output first
        for (int k = 0; k < levels; k++) {
            int mask = p >> (k + 1);
            int partner = rank ^ mask;
            long half = window.count() / 2;
            boolean keepLower = (rank & mask) == 0;
            Slice keep = keepLower ? window.sub(0, half) : window.sub(half, window.count() - half);
            Slice from = k == 0 ? source : window;
            Slice keepFrom = keepLower ? from.sub(0, half) : from.sub(half, from.count() - half);
            Slice give = keepLower ? from.sub(half, from.count() - half) : from.sub(0, half);
            s.at(1 + k).send(partner, give).recvReduce(partner, keep, keepFrom);
            windows.add(window);
            window = keep;
        }
        if (spec.op() == ReduceOp.AVG) {
            s.at(1 + levels).average(window, size);
        }
        // allgather by recursive doubling, in reverse order
        for (int k = levels - 1; k >= 0; k--) {
            int mask = p >> (k + 1);
            int partner = rank ^ mask;
            Slice parent = windows.get(k);
            long half = parent.count() / 2;
            boolean keptLower = (rank & mask) == 0;
            Slice other = keptLower ? parent.sub(half, parent.count() - half) : parent.sub(0, half);
            s.at(1 + levels + (levels - 1 - k)).send(partner, window).recvInto(partner, other);
            window = parent;
        }
        fold.unfold(s.at(2 * levels + 1), rank, all);
        return s.build();
    }
}
