package io.nexar.internal.util;

/** Argument checks at the API boundary; messages name the argument and its bound. */
public final class Checks {
    private Checks() {
    }

    /** Checks {@code rank} is in [0, worldSize). */
    public static int rank(String name, int rank, int worldSize) {
        if (rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException(name + " " + rank + " is not in [0, " + worldSize + ")");
        }
        return rank;
    }

    /** Checks a user tag is non-negative. */
    public static int tag(int tag) {
        if (tag < 0) {
            throw new IllegalArgumentException("tag " + tag + " is not in [0, " + Integer.MAX_VALUE + "]");
        }
        return tag;
    }

    /** Checks {@code value} is not null. */
    public static <T> T notNull(String name, T value) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }
}
