package io.nexar.internal.comm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The "announce each rebuild once" state of one communicator that follows the rebuilt world (policy automatic): the
 * highest world generation the application has been told about. An operation that finds the world rebuilt past it
 * {@linkplain #claim claims} the new generation and fails with an exception saying so; an operation that failed
 * because of the lost peer {@linkplain #acknowledge acknowledges} the rebuild it caused (its own exception told the
 * application), and so does {@code grow()} for the generation it made.
 *
 * <p>Any number of threads may call in at once: the generation only rises (compare-and-set), so each rise is
 * claimed by exactly one caller, and no rebuild is announced twice or after it was acknowledged.
 */
final class RebuildAnnouncements {
    private static final VarHandle ACKNOWLEDGED;

    static {
        try {
            ACKNOWLEDGED = MethodHandles.lookup().findVarHandle(RebuildAnnouncements.class, "acknowledged", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The highest generation the application was told about; only rises. */
    @SuppressWarnings("unused") // through ACKNOWLEDGED
    private volatile int acknowledged;

    /** @param generation the generation the application starts on (it needs no announcement) */
    RebuildAnnouncements(int generation) {
        this.acknowledged = generation;
    }

    /**
     * Whether the caller must announce {@code generation}: true for exactly one caller once the generation is above
     * every one claimed or acknowledged before (that caller then throws the announcement), false for every other
     * caller. One plain volatile read when there is nothing to announce.
     *
     * @param generation the generation of the view the caller is about to run on
     * @return true if this caller announces it
     */
    boolean claim(int generation) {
        return raise(generation);
    }

    /**
     * Records that the application knows of {@code generation} (a failed operation's own exception, or its own
     * growth): it is not announced again. Never lowers the acknowledged generation.
     *
     * @param generation the generation the application knows of
     */
    void acknowledge(int generation) {
        raise(generation);
    }

    /** Raises the acknowledged generation to {@code generation}; true for the one caller whose raise took effect. */
    private boolean raise(int generation) {
        int seen = acknowledged;
        while (generation > seen) {
            int witness = (int) ACKNOWLEDGED.compareAndExchange(this, seen, generation);
            if (witness == seen) {
                return true;
            }
            seen = witness; // another caller moved it first: ours takes effect only if it is still higher
        }
        return false;
    }

    /** @return the highest generation the application was told about */
    int acknowledged() {
        return acknowledged;
    }
}
