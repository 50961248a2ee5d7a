package io.nexar.internal.cluster;

import io.nexar.internal.protocol.Message;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Agreement messages for communicators this process does not know yet (a split still under way here while its other
 * members already shrink it), kept until the communicator is registered, at most {@link #MAX_EARLY} in all. Owned by
 * {@link Membership}'s thread; not thread-safe.
 */
final class EarlyAgreements {
    /** Agreement messages kept in all, over every unknown communicator. */
    static final int MAX_EARLY = 4096;

    private final Map<Integer, List<Held>> held = new HashMap<>();
    private int count;

    /**
     * An agreement message and the world rank it came from.
     *
     * @param from the sender's world rank
     * @param message the message
     */
    record Held(int from, Message.Agree message) {
    }

    /**
     * Keeps {@code m} until its communicator is registered, if there is room.
     *
     * @param from the sender's world rank
     * @param m the message
     * @return false if {@link #MAX_EARLY} messages are kept already and {@code m} was not
     */
    boolean hold(int from, Message.Agree m) {
        if (count >= MAX_EARLY) {
            return false;
        }
        held.computeIfAbsent(m.communicator(), id -> new ArrayList<>()).add(new Held(from, m));
        count++;
        return true;
    }

    /**
     * Removes and returns the messages kept for {@code communicator}, in arrival order.
     *
     * @param communicator a communicator id that is now registered
     * @return its messages, empty if none
     */
    List<Held> release(int communicator) {
        List<Held> out = held.remove(communicator);
        if (out == null) {
            return List.of();
        }
        count -= out.size();
        return out;
    }
}
