package io.nexar.internal.collective;

/**
 * One step of a schedule round. Peers are ranks of the communicator (not world ranks).
 *
 * <p>Within a round the executor runs, in this order: the local steps ({@link Copy}, {@link Reduce},
 * {@link Average}, {@link Identity}), then it opens the round's receives, then it issues the sends, then it waits for
 * the receives. So a send reads what the local steps wrote, and a receive must not target a slice that a send of the
 * same round reads (the {@link Simulator} checks this).
 */
public sealed interface Step {

    /** Sends {@code src} to {@code peer}. */
    record Send(int peer, Slice src) implements Step {
    }

    /** Receives exactly {@code dst.count()} elements from {@code peer} into {@code dst}. */
    record RecvInto(int peer, Slice dst) implements Step {
    }

    /**
     * Receives {@code dst.count()} elements from {@code peer} and reduces them with {@code operand} into {@code dst}:
     * dst = operand op in. The operand is {@code dst} itself for an accumulating receive; another slice (the caller's
     * input, typically) saves the copy into {@code dst} that would otherwise come first.
     */
    record RecvReduce(int peer, Slice dst, Slice operand) implements Step {
        public RecvReduce {
            if (operand.count() != dst.count()) {
                throw new IllegalArgumentException("reduce of " + operand.count() + " elements into " + dst.count());
            }
        }

        /** dst = dst op in. */
        public RecvReduce(int peer, Slice dst) {
            this(peer, dst, dst);
        }

        /** True if the operand is {@code dst} itself (dst = dst op in). */
        public boolean accumulates() {
            return operand.equals(dst);
        }
    }

    /** Copies {@code src} to {@code dst} (same count). */
    record Copy(Slice src, Slice dst) implements Step {
    }

    /** Reduces locally: dst = dst op src (same count). */
    record Reduce(Slice src, Slice dst) implements Step {
    }

    /** Finishes an AVG reduction: divides every element of {@code dst} by {@code divisor}. */
    record Average(Slice dst, long divisor) implements Step {
    }

    /** Fills {@code dst} with the identity of the reduce operator (exclusive scan on rank 0). */
    record Identity(Slice dst) implements Step {
    }
}
