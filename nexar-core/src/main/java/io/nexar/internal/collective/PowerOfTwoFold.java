package io.nexar.internal.collective;

/**
 * How the recursive allreduces (recursive doubling, halving-doubling) handle a size that is not a power of two: with
 * {@code p} the largest power of two not above the size, ranks {@code r >= p} fold their buffer into rank
 * {@code r - p} in round 0 and get the result back from it after the core rounds, which only ranks below {@code p}
 * run ({@code levels = log2 p} of them).
 *
 * @param p the largest power of two not above the size
 * @param extra the folded ranks, {@code size - p}: ranks {@code [0, extra)} take in and later return one each
 * @param levels {@code log2 p}
 */
record PowerOfTwoFold(int p, int extra, int levels) {

    /**
     * Plans round 0 on {@code s} (the input copied to {@code all}, the output buffer, then the fold) and, for a folded
     * rank, the receive of the result in round {@code resultRound}.
     *
     * @param resultRound the round in which the ranks below {@code extra} return the result, given {@code levels}
     */
    static PowerOfTwoFold begin(Schedule.Builder s, int rank, int size, Slice all,
                                java.util.function.IntUnaryOperator resultRound) {
        s.at(0).copy(new Slice(Buf.INPUT, 0, all.count()), all);
        int p = Integer.highestOneBit(size);
        var fold = new PowerOfTwoFold(p, size - p, Integer.numberOfTrailingZeros(p));
        if (rank >= p) { // folded: contribute, then wait for the result
            s.at(0).send(rank - p, all);
            s.at(resultRound.applyAsInt(fold.levels)).recvInto(rank - p, all);
        } else if (rank < fold.extra) {
            s.at(0).recvReduce(rank + p, all);
        }
        return fold;
    }

    /** True for a rank that only folded in and waits for the result: its schedule is complete. */
    boolean folded(int rank) {
        return rank >= p;
    }

    /** Returns the result to the folded partner of {@code rank}, if it has one, in {@code round}. */
    void unfold(Schedule.Round round, int rank, Slice all) {
        if (rank < extra) {
            round.send(rank + p, all);
        }
    }
}
