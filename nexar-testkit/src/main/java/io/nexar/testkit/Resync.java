package io.nexar.testkit;

import io.nexar.Communicator;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;

/**
 * What a program does after a {@link PeerFailedException} under recovery policy automatic (docs/failure-model.md):
 * an operation can complete on some survivors and fail on others, so the survivors agree on the first step that
 * not every one of them completed (the minimum of the steps they were at) and redo it on the rebuilt communicator.
 */
public final class Resync {
    /** Further failures tolerated while agreeing (each is another recovery). */
    private static final int ATTEMPTS = 10;

    private Resync() {
    }

    /**
     * Agrees with the other survivors on the step to redo.
     *
     * @param c the communicator the failed step ran on (the world, rebuilt under recovery policy automatic)
     * @param failedStep the step whose operation failed on this rank
     * @return the step every survivor redoes
     * @throws PeerFailedException if the agreement failed {@value #ATTEMPTS} times in a row
     */
    public static int step(Communicator c, int failedStep) {
        for (int attempt = 1; ; attempt++) {
            long[] step = {failedStep};
            try {
                c.allReduce(step, ReduceOp.MIN);
                return (int) step[0];
            } catch (PeerFailedException another) {
                if (attempt == ATTEMPTS) {
                    throw another;
                }
            }
        }
    }
}
