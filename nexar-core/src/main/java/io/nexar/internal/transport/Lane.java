package io.nexar.internal.transport;

/**
 * Independent ordered channels between two ranks. A stalled lane never delays another: a full bulk transfer never
 * holds up a heartbeat, a barrier or an RPC.
 */
public enum Lane {
    /** Hello, heartbeats, goodbye, membership. */
    CONTROL,
    /** Point-to-point messages. */
    P2P,
    /** Collective schedule traffic. */
    COLLECTIVE,
    /** Remote procedure calls. */
    RPC
}
