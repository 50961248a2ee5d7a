package io.nexar.internal.jfr;

import jdk.jfr.EventType;

/**
 * Starts the events of the hot paths only when a recording enables them: C2 does not always scalar-replace an event
 * that spans a call with exception edges (a collective's or a send's whole run), and an allocation profile showed one
 * {@link CollectiveEvent} per operation with no recording running. Callers commit a non-null event as usual
 * ({@code event != null && event.shouldCommit()}).
 */
public final class EventGates {
    private static final EventType COLLECTIVE = EventType.getEventType(CollectiveEvent.class);
    private static final EventType POINT_TO_POINT = EventType.getEventType(PointToPointEvent.class);

    private EventGates() {
    }

    /**
     * A begun {@link CollectiveEvent}, or null when no running recording enables it.
     *
     * @return the event, {@link jdk.jfr.Event#begin() begun}, or null
     */
    public static CollectiveEvent beginCollective() {
        if (!COLLECTIVE.isEnabled()) {
            return null;
        }
        var event = new CollectiveEvent();
        event.begin();
        return event;
    }

    /**
     * A begun {@link PointToPointEvent}, or null when no running recording enables it.
     *
     * @return the event, {@link jdk.jfr.Event#begin() begun}, or null
     */
    public static PointToPointEvent beginPointToPoint() {
        if (!POINT_TO_POINT.isEnabled()) {
            return null;
        }
        var event = new PointToPointEvent();
        event.begin();
        return event;
    }
}
