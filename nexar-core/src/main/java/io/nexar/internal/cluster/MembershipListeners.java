package io.nexar.internal.cluster;

import io.nexar.MembershipEvent;
import io.nexar.MembershipWatch;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's listeners of {@link MembershipEvent}s, each for the communicators it watches. Listeners are added
 * and removed from any thread; {@link Membership} emits on its own thread, and a listener that throws is logged and
 * does not stop the others.
 */
final class MembershipListeners {
    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

    private final int rank;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    private record Listener(IntPredicate communicators, Consumer<MembershipEvent> consumer) {
    }

    /**
     * An empty set of listeners.
     *
     * @param rank this process's world rank, for log messages
     */
    MembershipListeners(int rank) {
        this.rank = rank;
    }

    /**
     * Registers {@code consumer} for the communicators whose ids {@code communicators} accepts.
     *
     * @param communicators which communicators' events the listener wants
     * @param consumer the listener
     * @return the watch that removes it
     */
    MembershipWatch watch(IntPredicate communicators, Consumer<MembershipEvent> consumer) {
        var l = new Listener(communicators, consumer);
        listeners.add(l);
        return () -> listeners.remove(l);
    }

    /**
     * Gives {@code event} to every listener that watches its communicator, on the calling thread.
     *
     * @param event the event
     */
    void emit(MembershipEvent event) {
        for (Listener l : listeners) {
            if (l.communicators().test(event.communicator())) {
                try {
                    l.consumer().accept(event);
                } catch (RuntimeException e) {
                    LOG.warn("rank {}: membership listener failed on {}", rank, event, e);
                }
            }
        }
    }
}
