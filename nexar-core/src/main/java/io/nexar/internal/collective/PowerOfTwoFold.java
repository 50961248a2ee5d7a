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
 * @param copied round 0 copies the input into the output
 */
record PowerOfTwoFold(int p, int extra, int levels, boolean copied) {

    /**
     * Plans round 0 on {@code s} (the input copied to {@code all}, the output buffer, then the fold) and, for a folded
     * rank, the receive of the result in round {@code resultRound}.
     *
     * @param resultRound the round in which the ranks below {@code extra} return the result, given {@code levels}
     */
    static PowerOfTwoFold begin(Schedule.Builder s, int rank, int size, Slice all,
                                java.util.function.IntUnaryOperator resultRound) {
        return begin(s, rank, size, all, resultRound, true);
    }

    /**
     * As {@link #begin(Schedule.Builder, int, int, Slice, java.util.function.IntUnaryOperator)}; with
     * {@code copyInput} false the input is not copied into the output first (but for a world of one): a folded rank
     * sends its input, a rank taking one in reduces it with its input into the output, and the core rounds start from
     * {@link #source}.
     */
    static PowerOfTwoFold begin(Schedule.Builder s, int rank, int size, Slice all,
                                java.util.function.IntUnaryOperator resultRound, boolean copyInput) {
        var input = new Slice(Buf.INPUT, 0, all.count());
        boolean copy = copyInput || size == 1;
        if (copy) {
            s.at(0).copy(input, all);
        } else {
            s.at(0); // round 0 stays (empty on most ranks): the core rounds keep their numbers
        }
        int p = Integer.highestOneBit(size);
        var fold = new PowerOfTwoFold(p, size - p, Integer.numberOfTrailingZeros(p), copy);
        if (rank >= p) { // folded: contribute, then wait for the result
            s.at(0).send(rank - p, copy ? all : input);
            s.at(resultRound.applyAsInt(fold.levels)).recvInto(rank - p, all);
        } else if (rank < fold.extra) {
            s.at(0).recvReduce(rank + p, all, copy ? all : input);
        }
        return fold;
    }

    /**
     * Where {@code rank}'s data is after round 0: the output ({@code all}) if the input was copied or a folded rank's
     * was reduced into it, else still the input.
     */
    Slice source(int rank, Slice all) {
        return copied || rank < extra ? all : new Slice(Buf.INPUT, all.offset(), all.count());
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
