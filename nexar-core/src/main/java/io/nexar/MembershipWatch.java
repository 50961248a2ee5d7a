package io.nexar;

/** A listener registration made with {@link Communicator#watch}; {@link #close()} removes it. Idempotent. */
@FunctionalInterface
public interface MembershipWatch extends AutoCloseable {
    /** Stops delivering events to the listener. */
    @Override
    void close();
}
