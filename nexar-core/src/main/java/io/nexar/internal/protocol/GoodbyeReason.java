package io.nexar.internal.protocol;

/** Why a peer says goodbye; the code travels as one byte. */
public enum GoodbyeReason {
    /** Normal close. */
    CLOSE(0),
    /** The process failed (an uncaught error in the application or in nexar). */
    FAILURE(1),
    /** The peer violated the protocol. */
    PROTOCOL_ERROR(2);

    private final int code;

    GoodbyeReason(int code) {
        this.code = code;
    }

    /** The wire code. */
    public int code() {
        return code;
    }

    /** The reason for a wire code, or null if unknown. */
    public static GoodbyeReason fromCode(int code) {
        for (GoodbyeReason r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return null;
    }
}
