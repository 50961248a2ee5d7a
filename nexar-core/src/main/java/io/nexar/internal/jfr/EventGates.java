package io.nexar.internal.jfr;

import jdk.jfr.EventType;

/**
 * Whether a recording enables an event type now, asked before creating the event on a hot path: C2 does not always
 * scalar-replace an event that spans a call with exception edges (the collective's whole run), and an allocation
 * profile showed one {@link CollectiveEvent} per operation with no recording running.
 */
public final class EventGates {
    private static final EventType COLLECTIVE = EventType.getEventType(CollectiveEvent.class);

    private EventGates() {
    }

    /**
     * True if some running recording enables {@link CollectiveEvent}.
     *
     * @return whether creating a {@link CollectiveEvent} can lead to a commit
     */
    public static boolean collective() {
        return COLLECTIVE.isEnabled();
    }
}
