package io.nexar;

/**
 * The allgather algorithm (setting {@link ConfigKey#ALLGATHER_ALGORITHM}).
 * The setting's text is the constant's name in lower case with dashes
 * ({@code ring}).
 */
public enum AllGatherAlgorithm {
    /** Picks by size: recursive doubling up to {@code allgather.small.size}, the ring above. */
    AUTO,
    /** The ring. */
    RING,
    /** Recursive doubling. */
    RECURSIVE_DOUBLING;

    /**
     * The setting's text, as the environment, system properties and docs/config.md spell it.
     *
     * @return the name in lower case with dashes, for example {@code recursive-doubling}
     */
    public String key() {
        return ConfigKey.choiceKey(this);
    }
}
