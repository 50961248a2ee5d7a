package io.nexar.internal.collective;

import io.nexar.ReduceOp;

/**
 * Recursive-doubling allreduce for small buffers: the whole buffer is exchanged in each of log2 p rounds, so a
 * latency-bound call takes half the rounds (and messages) of {@link HalvingDoublingAllReduce}, which exchanges halves
 * twice as often. It sends log2(p) whole buffers per rank instead of about two, so the selector uses it only for
 * small buffers.
 *
 * <p>With p the largest power of two at most n and e = n - p, ranks p..n-1 first fold their buffer into rank r-p and
 * receive the result at the end, as in halving-doubling. Bit-identical results on every rank: in each exchange both
 * partners combine the same two operands in the same order, the lower rank's on the left (the lower rank reduces the
 * received buffer into its own; the higher one reduces its own into the received copy and takes that), so partners
 * hold identical bits after every round whatever the operator (NaN payloads included).
 *
 * <pre>
 * round 0          fold:      r in [p, n) --whole buffer--> r-p (reduce)
 * rounds 1..L      exchange:  partner = r ^ (1 << (k-1)); send the buffer, receive the partner's into scratch;
 *                             the next round first combines scratch (lower rank's operand on the left)
 * round L+1        combine the last exchange, average, then unfold: r in [0, e) --result--> r+p
 * </pre>
 */
public final class RecursiveDoublingAllReduce implements Algorithm {

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        var s = Schedule.builder(rank, size);
        long count = spec.count();
        var all = new Slice(Buf.OUTPUT, 0, count);
        var fold = PowerOfTwoFold.begin(s, rank, size, all, levels -> levels + 1);
        if (fold.folded(rank)) {
            return s.build();
        }
        int levels = fold.levels();
        var theirs = new Slice(Buf.SCRATCH, 0, count);
        s.scratch(count);
        for (int k = 0; k < levels; k++) {
            int partner = rank ^ (1 << k);
            if (k > 0) {
                combine(s.at(1 + k), rank, rank ^ (1 << (k - 1)), all, theirs);
            }
            s.at(1 + k).send(partner, all).recvInto(partner, theirs);
        }
        var last = s.at(1 + levels);
        if (levels > 0) {
            combine(last, rank, rank ^ (1 << (levels - 1)), all, theirs);
        }
        if (spec.op() == ReduceOp.AVG) {
            last.average(all, size);
        }
        fold.unfold(last, rank, all);
        return s.build();
    }

    /** all = lower op higher, where {@code theirs} holds the partner's buffer. */
    private static void combine(Schedule.Round round, int rank, int partner, Slice all, Slice theirs) {
        if (rank < partner) {
            round.reduce(theirs, all);
        } else {
            round.reduce(all, theirs).copy(theirs, all);
        }
    }
}
