package io.nexar.internal.protocol;

/** Why a rank aborts a collective operation ({@link Message.CollectiveAbort}); the code travels as one byte. */
public enum AbortReason {
    /** The ranks called different collectives or the same one with different arguments. */
    MISMATCH(1),
    /** The operation failed on the sender (timeout, failed peer, cancellation, local error). */
    FAILED(2),
    /**
     * The sender retired the communicator (an automatic recovery rebuilt the world without some of its members): it
     * will not post this operation nor any later one of it; those it posted before still run to their end there.
     */
    RETIRED(3);

    private final int code;

    AbortReason(int code) {
        this.code = code;
    }

    /** The wire code. */
    public int code() {
        return code;
    }

    /** The reason for a wire code, or null if unknown. */
    public static AbortReason fromCode(int code) {
        for (AbortReason r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return null;
    }
}
