package io.nexar;

/**
 * The broadcast algorithm (setting {@link ConfigKey#BROADCAST_ALGORITHM}).
 * The setting's text is the constant's name in lower case with dashes
 * ({@code binomial}).
 */
public enum BroadcastAlgorithm {
    /**
     * Picks by size: the binomial tree below {@code broadcast.large.size}, a pipelined chain from it (more than 2
     * ranks).
     */
    AUTO,
    /** The binomial tree. */
    BINOMIAL,
    /** A scatter from the root then an allgather. */
    SCATTER_ALLGATHER,
    /**
     * A pipelined chain from the root (each rank forwards a segment while it receives the next): every link carries
     * the buffer once; what {@link #AUTO} picks from {@code broadcast.large.size} with more than 2 ranks.
     */
    PIPELINED_CHAIN;

    /**
     * The setting's text, as the environment, system properties and docs/config.md spell it.
     *
     * @return the name in lower case with dashes, for example {@code scatter-allgather}
     */
    public String key() {
        return ConfigKey.choiceKey(this);
    }
}
