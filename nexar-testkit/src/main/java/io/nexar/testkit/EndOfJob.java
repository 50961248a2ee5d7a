package io.nexar.testkit;

import io.nexar.Communicator;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;
import java.util.Arrays;

/**
 * The end of a job as real programs end it (docs/failure-model.md "The end of a job"): a rank runs its last
 * collectives and closes its communicator as soon as its own last one returns, without waiting for the others, which
 * may still be inside it. Used by the tests of that case on each transport.
 */
public final class EndOfJob {
    /** Elements of each allReduce: 64 KiB of 64-bit integers (halving-doubling, a folded rank on 3 or 5 ranks). */
    private static final int COUNT = 8192;

    private EndOfJob() {
    }

    /**
     * Runs {@code calls} allReduces (sum of {@code rank + 1} over the ranks, every element checked), then closes
     * {@code c} at once.
     *
     * @param c this rank's communicator
     * @param calls how many allReduces to run before closing
     * @return {@code "done"}, or which call failed and how (the communicator is then left open)
     * @throws AssertionError if a result is wrong
     */
    public static String allReducesThenClose(Communicator c, int calls) {
        long size = c.worldSize();
        long sum = size * (size + 1) / 2;
        long[] x = new long[COUNT];
        for (int i = 0; i < calls; i++) {
            Arrays.fill(x, c.rank() + 1);
            try {
                c.allReduce(x, ReduceOp.SUM);
            } catch (PeerFailedException e) {
                return "failed at " + i + ": " + e.getMessage();
            }
            for (long v : x) {
                if (v != sum) {
                    throw new AssertionError("allReduce " + i + " on rank " + c.rank() + ": " + v + " instead of "
                            + sum);
                }
            }
        }
        c.close(); // at once: the others may still be inside the last allReduce
        return "done";
    }
}
