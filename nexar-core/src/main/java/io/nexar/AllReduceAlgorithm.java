package io.nexar;

/**
 * The allreduce algorithm (setting {@link ConfigKey#ALLREDUCE_ALGORITHM}); docs/collectives.md compares them.
 * The setting's text is the constant's name in lower case with dashes
 * ({@code ring}).
 */
public enum AllReduceAlgorithm {
    /**
     * Picks by size: recursive doubling or halving-doubling up to {@code allreduce.small.size}, the ring above, the
     * pipelined ring from {@code allreduce.large.size}.
     */
    AUTO,
    /** The ring: a reduce-scatter then an allgather, each chunk reduced on arrival. */
    RING,
    /**
     * Recursive doubling: log2(n) exchanges of the whole buffer, the fewest steps (what auto takes for the smallest
     * buffers, up to 4 KiB).
     */
    RECURSIVE_DOUBLING,
    /** Recursive halving-doubling: fewer steps than the ring, for small and medium buffers. */
    HALVING_DOUBLING,
    /** The ring in segments of {@code pipeline.segment.size}. */
    PIPELINED_RING,
    /** Every element folded in rank order, bit-identical to a sequential fold. */
    RANK_ORDER;

    /**
     * The setting's text, as the environment, system properties and docs/config.md spell it.
     *
     * @return the name in lower case with dashes, for example {@code rank-order}
     */
    public String key() {
        return ConfigKey.choiceKey(this);
    }
}
