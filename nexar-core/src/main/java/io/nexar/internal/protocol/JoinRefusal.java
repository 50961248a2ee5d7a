package io.nexar.internal.protocol;

/** Why the seed refuses a join ({@link EnrolmentMessage.JoinRefused}); the code travels as one byte. */
public enum JoinRefusal {
    /** The proof of the join token does not verify: wrong token, or a proof made for another nonce or CSR. */
    BAD_TOKEN(1),
    /** The CSR is malformed, its signature does not verify, or its key is weak. */
    BAD_CSR(2),
    /** The requested rank is outside {@code [0, worldSize)} or already taken. */
    RANK_UNAVAILABLE(3),
    /** The CSR's public key has already enrolled (a replayed or duplicated join). */
    KEY_ALREADY_ENROLLED(4),
    /** All ranks are assigned; the cluster has formed. */
    CLUSTER_FORMED(5),
    /** The formation deadline passed before every worker joined. */
    DEADLINE_PASSED(6),
    /** The worker sent something other than a valid join request. */
    PROTOCOL_ERROR(7),
    /** The seed is shutting down. */
    SHUTTING_DOWN(8);

    private final int code;

    JoinRefusal(int code) {
        this.code = code;
    }

    /** The wire code. */
    public int code() {
        return code;
    }

    /** The refusal for a wire code, or null if unknown. */
    public static JoinRefusal fromCode(int code) {
        for (JoinRefusal r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return null;
    }
}
