package io.nexar.internal.protocol;

/**
 * The explicit one-byte type code of every message on the wire. Codes are never reused; docs/protocol.md lists
 * the body layout of each.
 */
public enum MessageType {
    /** {@link Message.Hello}: first frame in each direction of a connection. */
    HELLO(0x01),
    /** {@link Message.Data}: one chunk of a point-to-point message. */
    DATA(0x10),
    /** {@link Message.Heartbeat}: liveness signal. */
    HEARTBEAT(0x20),
    /** {@link Message.Goodbye}: the sender is leaving. */
    GOODBYE(0x2F);

    private static final MessageType[] BY_CODE = new MessageType[256];

    static {
        for (MessageType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    MessageType(int code) {
        this.code = code;
    }

    /** The wire code, 0..255. */
    public int code() {
        return code;
    }

    /** The type for a wire code, or null if the code is unknown. */
    public static MessageType fromCode(int code) {
        return code >= 0 && code < 256 ? BY_CODE[code] : null;
    }
}
