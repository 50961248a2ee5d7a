package io.nexar.internal.collective;

/**
 * A collective algorithm: it only describes one rank's {@link Schedule}; the {@link ScheduleExecutor} runs it
 * against a transport and the {@link Simulator} without one. Implementations are stateless.
 */
@FunctionalInterface
public interface Algorithm {

    /**
     * The schedule of {@code rank} in a communicator of {@code size} for the call {@code spec}.
     *
     * @param rank this rank, in [0, size)
     * @param size communicator size, {@code >= 1}
     * @param spec the call's arguments (already validated)
     */
    Schedule plan(int rank, int size, OpSpec spec);
}
