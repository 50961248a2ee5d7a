package io.nexar.internal.util;

import java.util.concurrent.ThreadFactory;
import org.slf4j.MDC;

/**
 * The SLF4J MDC keys that nexar sets (docs/logging.md): {@value #RANK}, {@value #WORLD} and {@value #COMM}. They cost
 * nothing per message: a nexar-owned thread gets rank and world once, when it starts ({@link #threads}), and a
 * lifecycle line written on a caller's thread is wrapped in a {@link #scope} that puts the keys and restores the
 * caller's values afterwards. Nothing on the data path touches the MDC.
 */
public final class LogContext {
    /** MDC key: this process's rank (world rank, or the rank in {@link #COMM} on lines about a communicator). */
    public static final String RANK = "nexar.rank";
    /** MDC key: the world size (or the size of {@link #COMM} on lines about a communicator). */
    public static final String WORLD = "nexar.world";
    /** MDC key: the communicator id, on lines about one communicator (0 is the world). */
    public static final String COMM = "nexar.comm";

    private LogContext() {
    }

    /**
     * Puts rank and world size into the current thread's MDC, for a thread nexar owns, once at its start. A negative
     * value is not put.
     *
     * @param rank the rank
     * @param worldSize the world size
     */
    public static void set(int rank, int worldSize) {
        putIfKnown(RANK, rank);
        putIfKnown(WORLD, worldSize);
    }

    /**
     * A thread factory whose threads start with {@code rank} and {@code worldSize} in their MDC.
     *
     * @param factory the factory that names and creates the threads
     * @param rank the rank to put
     * @param worldSize the world size to put
     * @return the wrapping factory
     */
    public static ThreadFactory threads(ThreadFactory factory, int rank, int worldSize) {
        return r -> factory.newThread(() -> {
            set(rank, worldSize);
            r.run();
        });
    }

    /**
     * Puts rank, world size and communicator into the current thread's MDC until {@link Scope#close()}, which puts
     * back what was there (a caller's own thread keeps its values). For a lifecycle line only, not per message.
     * A negative value leaves that key as it was.
     *
     * @param rank the rank
     * @param worldSize the world or communicator size
     * @param communicator the communicator id, or -1
     * @return the scope to close after logging
     */
    public static Scope scope(int rank, int worldSize, long communicator) {
        var scope = new Scope(MDC.get(RANK), MDC.get(WORLD), MDC.get(COMM));
        putIfKnown(RANK, rank);
        putIfKnown(WORLD, worldSize);
        putIfKnown(COMM, communicator);
        return scope;
    }

    private static void putIfKnown(String key, long value) {
        if (value >= 0) {
            MDC.put(key, Long.toString(value));
        }
    }

    /** What the MDC held before a {@link #scope}; closing it restores that. */
    public static final class Scope implements AutoCloseable {
        private final String rank;
        private final String world;
        private final String comm;

        private Scope(String rank, String world, String comm) {
            this.rank = rank;
            this.world = world;
            this.comm = comm;
        }

        /** Restores the MDC values from before the scope. */
        @Override
        public void close() {
            restore(RANK, rank);
            restore(WORLD, world);
            restore(COMM, comm);
        }

        private static void restore(String key, String value) {
            if (value == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, value);
            }
        }
    }
}
