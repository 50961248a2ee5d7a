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

    /**
     * Completes "rank N ..." for a peer that said goodbye for this reason with {@code detail}: {@code left (...)}
     * for a normal close, {@code failed (...)} for a failure. Every transport and receive side names a leaving peer
     * with it, so {@link #isPoliteLeave} can tell a normal close from a failure.
     */
    public String describe(String detail) {
        return switch (this) {
            case CLOSE -> "left (" + detail + ")";
            case FAILURE -> "failed (" + detail + ")";
            case PROTOCOL_ERROR -> "closed the connection, saying this rank broke the protocol: " + detail;
        };
    }

    /** True if {@code why} is what {@link #describe} gives a normal close: the peer left, it did not fail. */
    public static boolean isPoliteLeave(String why) {
        return why.startsWith("left (");
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
